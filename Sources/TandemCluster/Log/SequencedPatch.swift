import TandemProtocol
import TandemServer

/// One patch as the room's log holds it: its rev and author, and its ops as JSON text.
struct SequencedPatch: Sendable, Equatable {
    /// The room epoch the patch was appended in (a follower must not mix epochs).
    var epoch: String
    /// The patch's place in the room's total order.
    var rev: Int64
    /// The author's user id.
    var user: String
    /// The author's client id.
    var client: String
    /// The author's seq for this patch.
    var seq: Int64
    /// The ops, a JSON array, exactly as submitted.
    var ops: [UInt8]
    /// When the author's node appended it (unix ms; 0 for entries logged without a time).
    var time: Int64

    /// Creates a log entry.
    init(epoch: String, rev: Int64, user: String, client: String, seq: Int64, ops: [UInt8], time: Int64 = 0) {
        self.epoch = epoch
        self.rev = rev
        self.user = user
        self.client = client
        self.seq = seq
        self.ops = ops
        self.time = time
    }

    /// The patch as rooms sequence and send it: its ops parsed, the logged bytes kept as their encoding.
    /// - Throws: the parse or op error of an entry whose ops are not a valid op list.
    func event() throws -> PatchEvent {
        try PatchEvent(rev: rev, user: user, client: client, seq: seq, storedOps: ops)
    }
}
