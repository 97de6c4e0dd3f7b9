import TandemProtocol

/// A local change the server has not confirmed yet, in the order the app made it.
///
/// A patch gets its `seq` only when it first goes on the wire, so unsent patches can still be
/// merged; once a seq is assigned it never changes (a resend after a reconnect reuses it, which is
/// what makes the server's exactly-once rule work).
public struct PendingPatch: Sendable, Hashable {
    /// Where a pending patch stands on the current connection.
    public enum Stage: Sendable, Hashable {
        /// Waiting in the outbox (never sent, or sent over a connection that was lost).
        case unsent
        /// Sent over the current connection; its `ack`, `reject` or own `patch` event is awaited.
        case inFlight
    }

    /// The patch's sequence number; `nil` until it is first sent.
    public internal(set) var seq: Int64?
    /// The ops, applied atomically by the server.
    public internal(set) var ops: [PatchOp]
    /// Whether the patch is on the wire.
    public internal(set) var stage: Stage
    /// The rev `ops` were made on (with the earlier pending patches on top): the engine's rev while
    /// the engine rebases the patch over each remote change, an older one when a rebase could not be
    /// done (the server then rebases it, or refuses it, from there).
    public internal(set) var base: Int64
    /// The ops as sent over the current connection, while in flight: what the server applied when
    /// its ack carries no ops of its own.
    var sent: [PatchOp]?
    /// When it was sent over the current connection (the engine's monotonic nanoseconds): its answer
    /// measures the round trip.
    var sentAt: Int64?

    /// Creates a pending patch (tests and the engine).
    public init(seq: Int64?, ops: [PatchOp], stage: Stage, base: Int64 = 0) {
        self.seq = seq
        self.ops = ops
        self.stage = stage
        self.base = base
    }

    /// True when the patch can still be merged with a newer one: never sent, so no seq is bound to it.
    public var isMergeable: Bool { seq == nil }

    /// Equal seq, ops, stage and base (what was sent over a connection is the connection's business).
    public static func == (lhs: PendingPatch, rhs: PendingPatch) -> Bool {
        lhs.seq == rhs.seq && lhs.ops == rhs.ops && lhs.stage == rhs.stage && lhs.base == rhs.base
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(seq)
        hasher.combine(ops)
        hasher.combine(stage)
        hasher.combine(base)
    }
}

extension PendingPatch: Codable {
    private enum CodingKeys: String, CodingKey {
        case seq, ops, base
    }

    /// Decodes a saved patch; it is unsent until the next connection resends it. A patch saved without
    /// a base gets 0, which the engine reads as the saved state's rev.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decodeIfPresent(Int64.self, forKey: .seq)
        ops = try container.decode([PatchOp].self, forKey: .ops)
        base = try container.decodeIfPresent(Int64.self, forKey: .base) ?? 0
        stage = .unsent
    }

    /// Encodes the seq (absent when never sent), the ops and the base; the stage belongs to a
    /// connection and is not kept.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(seq, forKey: .seq)
        try container.encode(ops, forKey: .ops)
        try container.encode(base, forKey: .base)
    }
}
