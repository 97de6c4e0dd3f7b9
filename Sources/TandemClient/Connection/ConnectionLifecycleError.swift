/// A lifecycle event that is impossible in the current state (a bug in the driver, not a
/// network condition).
public enum ConnectionLifecycleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `event` has no transition from `state`.
    case impossible(event: ConnectionEvent, state: ConnectionState)

    /// What was refused and why.
    public var description: String {
        switch self {
        case .impossible(let event, let state):
            "connection event \(event) is impossible in state \(state); the session must not send it now"
        }
    }
}
