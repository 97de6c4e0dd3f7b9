import TandemProtocol

/// Something a `SyncSession` reports to the app, in the order it happened.
public enum SyncSessionEvent: Sendable, Hashable {
    /// The lifecycle state changed (the same values as `SyncSession.states`, in order with the
    /// other events, for consumers that want one ordered stream).
    case connectionChanged(ConnectionState)
    /// A connection attempt failed before a socket was open (token provider or connect error).
    case attemptFailed(reason: String)
    /// A `welcome` was processed: in sync at `rev` of `epoch`; `participants` is everyone in the
    /// room, this client included.
    case synchronized(epoch: String, rev: Int64, snapshot: Bool, participants: [Participant])
    /// The visible document, the confirmed rev or the number of pending patches changed.
    case stateChanged(SyncSnapshot)
    /// A local patch was applied by the server at `rev`.
    case acknowledged(seq: Int64, rev: Int64)
    /// The server refused a local patch; it was rolled back out of the visible document.
    case rejected(seq: Int64, code: RejectCode, message: String, ops: [PatchOp])
    /// A participant arrived.
    case joined(Participant)
    /// A participant's presence data changed.
    case presenceChanged(Peer, data: JSONValue)
    /// A participant left.
    case left(Peer)
    /// An ephemeral event from another participant.
    case signal(from: Peer, event: String, data: JSONValue)
    /// A heartbeat round trip was measured, seconds.
    case roundTrip(seconds: Double)
    /// Pongs are late (`missedPongs` in a row): the connection is kept, but the network is weak; the app may
    /// say so. `linkRecovered` follows as soon as anything arrives again.
    case linkDegraded(missedPongs: Int)
    /// The server is heard from again after `linkDegraded`.
    case linkRecovered
    /// The server reported an error (a close frame follows when it is fatal).
    case serverError(code: ErrorCode, message: String)
    /// The engine lost track of the server's history; the next connection asks for a snapshot.
    case resyncNeeded(reason: String)
    /// The server sent something this client cannot read; the connection was closed (1007) and the
    /// session reconnects with its backoff.
    case protocolError(SyncProtocolError)
    /// The session's state could not be saved (a full disk, a removed folder). The session goes on in
    /// memory and tries again with the next change; until a save succeeds, pending changes would not
    /// survive the app.
    case persistenceFailed(SyncPersistenceError)
}

/// What the app renders: the visible document (confirmed state with pending patches on top), the
/// confirmed rev, and how many local patches the server has not settled yet.
public struct SyncSnapshot: Sendable, Hashable {
    /// The rev of the confirmed state.
    public var rev: Int64
    /// Local patches not acknowledged or rejected yet.
    public var pending: Int
    /// The visible document.
    public var state: JSONValue

    /// Creates a snapshot.
    public init(rev: Int64, pending: Int, state: JSONValue) {
        self.rev = rev
        self.pending = pending
        self.state = state
    }
}
