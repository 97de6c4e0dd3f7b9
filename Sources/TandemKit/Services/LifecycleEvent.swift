/// An app lifecycle event that `ServiceLifecycle` turns into calls on its participants.
public enum LifecycleEvent: String, Sendable, Hashable, CaseIterable {
    /// The app launched (or a new user logged in after a logout): start every service.
    case launch
    /// The app entered the foreground: resume every service.
    case foreground
    /// The app entered the background: pause every service.
    case background
    /// The user logged out: tear every service down.
    case logout
}
