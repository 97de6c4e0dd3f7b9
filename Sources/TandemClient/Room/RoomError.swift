/// The last thing that went wrong in a `SharedRoom`, for the app to show or log. The room goes on.
public enum RoomError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A local change was refused by the session (it does not apply, or this role may not write); the
    /// state shows the room's state without it.
    case changeRefused(SyncSessionError)
    /// The server refused a local change (`reject`); it was rolled back.
    case rejected(code: String, message: String)
    /// The room's state does not decode as the app's type (a schema mismatch between participants):
    /// `state` keeps the last value that did, and remote changes are not shown until it decodes again.
    case incompatibleState(SharedStateError)
    /// A local change could not be encoded; it was not applied.
    case unencodableChange(SharedStateError)
    /// The session's state could not be saved.
    case persistence(SyncPersistenceError)
    /// The server sent something this client cannot read; the session reconnects.
    case protocolError(SyncProtocolError)

    /// What went wrong.
    public var description: String {
        switch self {
        case .changeRefused(let error): "a change was refused: \(error)"
        case .rejected(let code, let message): "the server rejected a change (\(code)): \(message)"
        case .incompatibleState(let error): "\(error)"
        case .unencodableChange(let error): "a change could not be shared: \(error)"
        case .persistence(let error): "the session could not be saved: \(error)"
        case .protocolError(let error): "\(error)"
        }
    }
}
