import TandemProtocol

/// Why the engine refused a local change (nothing was queued).
public enum SyncEngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The change does not apply to the visible document (bad path, wrong type, limits).
    case invalidChange(PatchError)
    /// The session's role may not change the shared state (a viewer).
    case readOnly(role: Role)

    /// A message the app can act on.
    public var description: String {
        switch self {
        case .invalidChange(let error): "the change does not apply to the shared state: \(error)"
        case .readOnly(let role): "a \(role) may not change the shared state; join with a host or guest token"
        }
    }
}
