/// The heartbeat the server expects (`welcome.heartbeat`), in milliseconds.
public struct HeartbeatSettings: Sendable, Hashable {
    /// How often the client should ping (default 10 000 ms).
    public var interval: Int
    /// After how long without any frame from the client the server closes with 4000
    /// (default 30 000 ms).
    public var timeout: Int

    /// Creates settings; the defaults are protocol v1's defaults.
    public init(interval: Int = 10_000, timeout: Int = 30_000) {
        self.interval = interval
        self.timeout = timeout
    }
}
