/// What the load generator checks about the order of a Tandem server's output, per connection: every rev of
/// the room arrives exactly once and in order (the author's own patches as `ack`s, everyone else's as `patch`
/// events, both carrying the rev), and every patch sent gets exactly one ack, in seq order. Any nonzero count
/// is a server bug, not noise.
struct DeliveryAudit: Sendable, Equatable {
    /// Revs skipped: a rev arrived more than one after the previous one (counted per missing rev).
    var missingRevs = 0
    /// Revs that arrived at or below one already seen on that connection (a duplicate or a reorder).
    var staleRevs = 0
    /// Acks whose seq was not the next one expected from that client (a lost or reordered ack).
    var outOfOrderAcks = 0
    /// Acks flagged `duplicate` (the generator never resends, so none should be).
    var duplicateAcks = 0
    /// `reject` messages (none are expected: valid patches, no rate limit).
    var rejects = 0
    /// Patches sent without an ack once the scenario drained.
    var lostAcks = 0

    /// Whether nothing went wrong.
    var isClean: Bool { self == DeliveryAudit() }

    /// Records a rev that arrived on a connection whose last rev was `previous`; returns the connection's new last rev.
    mutating func observe(rev: Int64, after previous: Int64) -> Int64 {
        if rev == previous + 1 { return rev }
        if rev > previous + 1 {
            missingRevs += Int(rev - previous - 1)
            return rev
        }
        staleRevs += 1
        return previous
    }

    /// Records an ack of `seq` from a client whose last acked seq was `previous`; returns its new last acked seq.
    mutating func observeAck(seq: Int, duplicate: Bool, after previous: Int) -> Int {
        if duplicate { duplicateAcks += 1 }
        if seq != previous + 1 { outOfOrderAcks += 1 }
        return max(seq, previous)
    }

    /// The sum of two audits (several scenarios of one run).
    static func + (left: DeliveryAudit, right: DeliveryAudit) -> DeliveryAudit {
        DeliveryAudit(
            missingRevs: left.missingRevs + right.missingRevs, staleRevs: left.staleRevs + right.staleRevs,
            outOfOrderAcks: left.outOfOrderAcks + right.outOfOrderAcks, duplicateAcks: left.duplicateAcks + right.duplicateAcks,
            rejects: left.rejects + right.rejects, lostAcks: left.lostAcks + right.lostAcks)
    }

    /// The nonzero counts, e.g. "3 missing revs, 1 lost ack", or "ok".
    var summary: String {
        let parts = [
            (missingRevs, "missing revs"), (staleRevs, "stale revs"), (outOfOrderAcks, "out-of-order acks"),
            (duplicateAcks, "duplicate acks"), (rejects, "rejects"), (lostAcks, "lost acks"),
        ].filter { $0.0 != 0 }.map { "\($0.0) \($0.1)" }
        return parts.isEmpty ? "ok" : parts.joined(separator: ", ")
    }
}
