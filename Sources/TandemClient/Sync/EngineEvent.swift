import TandemProtocol

/// Something the app or the networked session should know after the engine processed a message.
public enum EngineEvent: Sendable, Hashable {
    /// A `welcome` was processed: the engine is in sync at `rev` of `epoch` (`snapshot` when the
    /// server sent the full state instead of a replay).
    case synchronized(epoch: String, rev: Int64, snapshot: Bool)
    /// The visible document changed; render it (one entry point for local and remote changes).
    case visibleChanged
    /// A patch of this client was applied by the server at `rev` (from an `ack` or an own `patch` event).
    case acknowledged(seq: Int64, rev: Int64)
    /// The server refused a patch; it has been rolled back out of the visible state.
    case rejected(seq: Int64, code: RejectCode, message: String, ops: [PatchOp])
    /// A remote change (another client's patch) was applied to the confirmed state.
    case remoteChange(PatchEvent)
    /// The server's history did not line up with the engine's (a gap, or a patch that did not
    /// apply); the next `hello` asks for a full snapshot instead of a replay.
    case resyncNeeded(reason: String)
}
