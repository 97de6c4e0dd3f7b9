/// Why a `ServiceLifecycle` event was not carried out.
public enum LifecycleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The event makes no sense in the current phase (e.g. `background` before `launch`).
    case invalidEvent(LifecycleEvent, phase: LifecyclePhase)
    /// `service` failed to start; the services started before it were torn down again.
    case startFailed(service: String, reason: String)

    /// What happened and what to do.
    public var description: String {
        switch self {
        case let .invalidEvent(event, phase):
            return "cannot handle \(event.rawValue) while \(phase.rawValue); send launch first (and after every logout)"
        case let .startFailed(service, reason):
            return "\(service) failed to start (\(reason)); the services started before it were torn down, launch again to retry"
        }
    }
}
