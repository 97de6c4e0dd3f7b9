/// What an app's surroundings report to a session's lifecycle: the app moved to the background or came
/// back, or the network path changed.
public enum AppEnvironmentEvent: Sendable, Equatable {
    /// The app left the screen (a scene or the app entered the background).
    case background
    /// The app is on screen again.
    case foreground
    /// The network path now (the first one reported is where the app starts).
    case path(NetworkPath)
}
