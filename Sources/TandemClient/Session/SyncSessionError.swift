/// Why a `SyncSession` refused a call.
public enum SyncSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The change was refused by the engine (it does not apply, or the role may not patch).
    case change(SyncEngineError)
    /// The session was stopped or closed for good; start a new one.
    case closed

    /// A message the app can act on.
    public var description: String {
        switch self {
        case .change(let error): error.description
        case .closed: "the session is closed; create and start a new session"
        }
    }
}
