import TandemProtocol

/// The two forms of an applied patch on the server: the `PatchEvent` that rooms sequence and send, and the
/// `StoredPatch` row that storage keeps. Storage never interprets JSON, so a row holds the ops as the bytes
/// the event was encoded into once; these are the only places one form becomes the other.
extension StoredPatch {
    /// The row of `event`, applied in `room` at `time` (unix ms), with the event's encoded ops.
    init(room: String, event: PatchEvent, time: Int64) {
        let ops = event.encodedOps ?? {
            var bytes: [UInt8] = []
            PatchOp.write(event.ops, into: &bytes)
            return bytes
        }()
        self.init(room: room, rev: event.rev, user: event.user, client: event.client, seq: event.seq, ops: ops, time: time)
    }
}

extension PatchEvent {
    /// The event a stored row holds: its ops parsed once, and the stored bytes kept as their encoding.
    /// - Throws: the parse or op error of a row whose ops are not a valid op list.
    init(stored patch: StoredPatch) throws {
        try self.init(rev: patch.rev, user: patch.user, client: patch.client, seq: patch.seq, storedOps: patch.ops)
    }

    /// An event from kept bytes (a storage row, a log entry): `storedOps` parsed once and kept as the ops'
    /// encoding.
    /// - Throws: the parse or op error of bytes that are not a valid op list.
    package init(rev: Int64, user: String, client: String, seq: Int64, storedOps: [UInt8]) throws {
        self.init(rev: rev, user: user, client: client, seq: seq, ops: try PatchOp.list(from: try JSONValue.parseStored(storedOps)),
                  encodedOps: storedOps)
    }
}
