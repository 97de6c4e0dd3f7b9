/// What a `SharedRoom` shows about its connection and its local changes: enough for a status line
/// ("connected · all changes saved", "reconnecting · saving 3 changes…", "weak network").
public struct RoomStatus: Sendable, Hashable {
    /// Where the connection stands.
    public enum Connection: Sendable, Hashable {
        /// Opening the connection (the first time, or again after `resume`).
        case connecting
        /// Established; changes flow both ways.
        case connected
        /// Established, but pongs are late: the network is weak, the connection is kept.
        case degraded
        /// Lost; trying again (`attempt`) after a delay.
        case reconnecting(attempt: Int)
        /// Suspended by the app (background): local changes queue.
        case offline
        /// Ended for good; `reason` says why and what to do.
        case closed(ConnectionCloseReason)
    }

    /// The connection.
    public var connection: Connection = .connecting
    /// Local changes the server has not confirmed yet (including those still on their way to the session).
    public var pendingChanges = 0
    /// The network the room runs on, as the system reports it (an expensive or constrained path).
    public var network = NetworkConditions()

    /// Whether every local change is confirmed by the server ("all changes saved").
    public var isSaved: Bool { pendingChanges == 0 }

    /// Creates a status.
    public init(connection: Connection = .connecting, pendingChanges: Int = 0, network: NetworkConditions = NetworkConditions()) {
        self.connection = connection
        self.pendingChanges = pendingChanges
        self.network = network
    }
}
