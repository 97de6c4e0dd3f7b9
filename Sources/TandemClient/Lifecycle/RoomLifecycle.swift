/// Who handles a room's lifecycle: background, foreground and network path changes.
public enum RoomLifecycle: Sendable {
    /// The room does, from the system's notifications and network path (`PlatformEnvironment`), with
    /// `settings`. Where the platform reports neither (Linux), nothing happens.
    case automatic(LifecycleSettings = LifecycleSettings())
    /// The app does, calling the session's `suspend()`, `resume()` and `reconnectNow()` itself.
    case manual
    /// The room does, from `environment`, timed by `clock` (tests script both).
    case environment(any AppEnvironment, LifecycleSettings = LifecycleSettings(), clock: any Clock<Duration> = ContinuousClock())

    /// The environment and settings to follow, or nil for none.
    var source: (environment: any AppEnvironment, settings: LifecycleSettings, clock: any Clock<Duration>)? {
        switch self {
        case .automatic(let settings): PlatformEnvironment.make().map { ($0, settings, ContinuousClock()) }
        case .manual: nil
        case .environment(let environment, let settings, let clock): (environment, settings, clock)
        }
    }
}

/// The system's `AppEnvironment`, chosen here and nowhere else.
public enum PlatformEnvironment {
    /// The system's notifications and network path monitor where the platform has them; nil elsewhere.
    public static func make() -> (any AppEnvironment)? {
        #if canImport(Network) && canImport(UIKit)
        SystemAppEnvironment()
        #else
        nil
        #endif
    }
}
