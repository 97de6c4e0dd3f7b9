/// Where the services managed by a `ServiceLifecycle` are.
public enum LifecyclePhase: String, Sendable, Hashable, CaseIterable {
    /// Not started (before launch, after logout or after a failed launch).
    case idle
    /// Started and in the foreground.
    case active
    /// Started and paused in the background.
    case background
}
