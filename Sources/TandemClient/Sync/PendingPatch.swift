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

    /// Creates a pending patch (tests and the engine).
    public init(seq: Int64?, ops: [PatchOp], stage: Stage) {
        self.seq = seq
        self.ops = ops
        self.stage = stage
    }

    /// True when the patch can still be merged with a newer one: never sent, so no seq is bound to it.
    public var isMergeable: Bool { seq == nil }
}

extension PendingPatch: Codable {
    private enum CodingKeys: String, CodingKey {
        case seq, ops
    }

    /// Decodes a saved patch; it is unsent until the next connection resends it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decodeIfPresent(Int64.self, forKey: .seq)
        ops = try container.decode([PatchOp].self, forKey: .ops)
        stage = .unsent
    }

    /// Encodes the seq (absent when never sent) and the ops; the stage belongs to a connection and is not kept.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(seq, forKey: .seq)
        try container.encode(ops, forKey: .ops)
    }
}
