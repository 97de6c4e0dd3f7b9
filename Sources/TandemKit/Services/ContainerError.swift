/// Why a `Container` could not produce a service.
public enum ContainerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No registration exists for `service`; `path` lists the services whose factories were
    /// resolving it, outermost first (empty for a direct `resolve`).
    case notRegistered(service: String, path: [String])
    /// Resolving the services in `path` leads back to the first of them.
    case cycle(path: [String])
    /// The factory of `service` threw; `reason` is the thrown error's description.
    case factoryFailed(service: String, reason: String)

    /// What went wrong and what to register or change.
    public var description: String {
        switch self {
        case let .notRegistered(service, path):
            let via = path.isEmpty ? "" : " (needed by \(path.joined(separator: " → ")))"
            return "no registration for \(service)\(via); register a factory for \(service) on the container (or in an override) before resolving it"
        case let .cycle(path):
            return "dependency cycle \(path.joined(separator: " → ")); break it by resolving one side lazily or injecting a factory"
        case let .factoryFailed(service, reason):
            return "the factory for \(service) failed: \(reason)"
        }
    }
}
