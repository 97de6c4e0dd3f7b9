/// The timing of a session's lifecycle.
public struct LifecycleSettings: Sendable, Hashable {
    /// How long the app may stay in the background before the session is suspended: a quick switch to
    /// another app and back keeps the connection.
    public var backgroundGrace: Duration
    /// How long the path must stay the same before the session reconnects on it: a path that changes ten
    /// times a second causes one reconnect, not ten.
    public var pathSettle: Duration
    /// The longest a path change waits for the path to settle: one that never does still reconnects this often.
    public var pathMaxDelay: Duration

    /// Settings; the defaults suit a phone.
    public init(backgroundGrace: Duration = .seconds(5), pathSettle: Duration = .milliseconds(300), pathMaxDelay: Duration = .seconds(2)) {
        self.backgroundGrace = backgroundGrace
        self.pathSettle = pathSettle
        self.pathMaxDelay = pathMaxDelay
    }
}
