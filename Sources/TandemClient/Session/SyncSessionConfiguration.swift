/// Settings of a `SyncSession`: the engine's flow control, the reconnect rules and the bounds of
/// one connection attempt.
public struct SyncSessionConfiguration: Sendable {
    /// Outbox flow control (in flight, pacing, high-rate paths).
    public var engine: SyncEngineConfiguration
    /// When and how soon to reconnect.
    public var reconnect: ReconnectPolicy
    /// Bound of the TCP connect and WebSocket upgrade together.
    public var connectTimeout: Duration
    /// How long to wait for `welcome` after `hello` before the attempt counts as failed, nanoseconds.
    public var welcomeTimeout: Int64
    /// The round-trip estimator the heartbeat starts each connection with (its bounds set the pong deadline).
    public var rtt: RTTEstimator
    /// Pongs missed in a row, with nothing else received in between, that declare a connection dead (a
    /// single late pong only marks the link degraded; see `HeartbeatMonitor`).
    public var heartbeatMisses: Int
    /// Largest message accepted from the server, bytes.
    public var maxMessageSize: Int
    /// How many unread items `events` and `states` each keep for a consumer that falls behind (or never
    /// reads); beyond it the oldest are dropped, so a session never grows memory for its observers.
    /// Visible state is not at risk: `snapshots()` always delivers the latest.
    public var eventBufferLimit: Int
    /// With a `SyncPersistence`: the longest a local change, ack or remote patch waits before the state
    /// holding it is saved (changes in that window are written together; `flush()` writes at once). A
    /// patch is always saved with its seq before it goes on the wire, whatever this says.
    public var persistenceInterval: Duration

    /// Creates a configuration; defaults: engine and policy defaults, 10 s connect, 10 s welcome, 3 missed
    /// pongs, 16 MiB messages, 4,096 buffered events, saves at most every 50 ms.
    public init(
        engine: SyncEngineConfiguration = SyncEngineConfiguration(), reconnect: ReconnectPolicy = ReconnectPolicy(),
        connectTimeout: Duration = .seconds(10), welcomeTimeout: Int64 = 10_000_000_000,
        rtt: RTTEstimator = RTTEstimator(), heartbeatMisses: Int = 3, maxMessageSize: Int = 16 << 20, eventBufferLimit: Int = 4096,
        persistenceInterval: Duration = .milliseconds(50)
    ) {
        self.engine = engine
        self.reconnect = reconnect
        self.connectTimeout = connectTimeout
        self.welcomeTimeout = welcomeTimeout
        self.rtt = rtt
        self.heartbeatMisses = max(1, heartbeatMisses)
        self.maxMessageSize = maxMessageSize
        self.eventBufferLimit = max(1, eventBufferLimit)
        self.persistenceInterval = max(.zero, persistenceInterval)
    }
}
