import TandemProtocol

/// The writes of one room whose authors wait for an outcome: a connection's patches (acked or refused
/// later) and the HTTP API's writes (answered once durable and released).
///
/// A value with one owner (the room, under its lock); no I/O.
struct PendingWrites {
    /// A connection's patch waiting for its outcome.
    struct Awaiting {
        var connection: ConnectionID
        var arrival: ContinuousClock.Instant
        /// The ops as sent, when they may be rebased (the patch had a `base`): if the ops applied
        /// differ, the ack carries them.
        var sent: [PatchOp]?
    }

    /// An HTTP write waiting for its rev's release: how to answer it, and whether it is durable already
    /// (a cluster's log took it) or only once released (a commit here).
    struct HTTPWrite {
        var answer: @Sendable (HTTPWriteOutcome) -> Void
        var durable: Bool
    }

    private struct ClientSeq: Hashable {
        var author: Peer
        var seq: Int64
    }

    private var awaiting: [ClientSeq: Awaiting] = [:]
    /// HTTP writes applied at a known rev, answered when that rev is released.
    private var httpByRev: [Int64: HTTPWrite] = [:]
    /// HTTP writes whose rev the sequencer reports later, by the seq they were submitted with.
    private var httpBySeq: [Int64: @Sendable (HTTPWriteOutcome) -> Void] = [:]
    /// The least seq the next HTTP write gets, whoever makes it (writes still sequencing have theirs
    /// already): seqs of one subject rise, and a write waiting for its rev is known by its seq alone.
    private var nextHTTPSeq: Int64 = 1

    /// Remembers that `author`'s patch `seq` waits for its outcome.
    mutating func wait(author: Peer, seq: Int64, _ write: Awaiting) {
        awaiting[ClientSeq(author: author, seq: seq)] = write
    }

    /// The waiting patch `seq` of `author`, if any, without forgetting it.
    func waiting(author: Peer, seq: Int64) -> Awaiting? {
        awaiting[ClientSeq(author: author, seq: seq)]
    }

    /// Forgets and returns the waiting patch `seq` of `author`.
    mutating func take(author: Peer, seq: Int64) -> Awaiting? {
        awaiting.removeValue(forKey: ClientSeq(author: author, seq: seq))
    }

    /// The seq the next HTTP write is submitted with, given the last its subject's id has applied.
    mutating func httpSeq(after lastApplied: Int64) -> Int64 {
        let seq = max(nextHTTPSeq, lastApplied + 1)
        nextHTTPSeq = seq + 1
        return seq
    }

    /// Keeps an HTTP write applied at `rev` until that rev is released.
    mutating func holdHTTP(at rev: Int64, _ write: HTTPWrite) {
        httpByRev[rev] = write
    }

    /// Keeps an HTTP write until its sequencer reports an outcome for `seq`.
    mutating func holdHTTP(seq: Int64, _ answer: @escaping @Sendable (HTTPWriteOutcome) -> Void) {
        httpBySeq[seq] = answer
    }

    /// Forgets and returns the HTTP write applied at `rev`.
    mutating func takeHTTP(at rev: Int64) -> HTTPWrite? {
        httpByRev.removeValue(forKey: rev)
    }

    /// Forgets and returns the HTTP write submitted with `seq`.
    mutating func takeHTTP(submittedWith seq: Int64) -> (@Sendable (HTTPWriteOutcome) -> Void)? {
        httpBySeq.removeValue(forKey: seq)
    }

    /// Whether an HTTP write waits for `rev`'s release.
    func hasHTTPWrite(at rev: Int64) -> Bool { httpByRev[rev] != nil }

    /// The room stops serving: forgets every waiting patch (their connections close) and answers every
    /// HTTP write applied at a rev: as applied when durable, else as failed with `message`. Writes the
    /// sequencer still decides are answered by it.
    mutating func closeAll(message: String) {
        awaiting.removeAll()
        let writes = httpByRev
        httpByRev.removeAll()
        for (rev, write) in writes { write.answer(write.durable ? .applied(rev: rev) : .failed(message)) }
    }
}
