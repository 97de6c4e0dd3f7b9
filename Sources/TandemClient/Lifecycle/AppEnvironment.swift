/// Where a session's lifecycle learns what the app and the network do. The system's implementation
/// (`PlatformEnvironment.make()`) reads scene notifications and `NWPathMonitor`; tests script one.
public protocol AppEnvironment: Sendable {
    /// The events from now on, in order; a fresh stream for each call. The first `.path` is the current one.
    func events() -> AsyncStream<AppEnvironmentEvent>
}
