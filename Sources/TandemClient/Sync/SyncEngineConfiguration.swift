import TandemProtocol

/// Flow-control settings of a `SyncEngine`.
public struct SyncEngineConfiguration: Sendable, Hashable {
    /// Most patches sent and not yet answered at once (≥ 1).
    public var maxInFlight: Int
    /// Share of the announced `rate` and `burst` the engine uses, leaving room for jitter and for
    /// pings and presence messages (SPEC: ≤ 80 %).
    public var pacingShare: Double
    /// Paths whose values change at a high rate (scroll offsets); a patch made only of ops at or
    /// below one of them is sent at most every `highRateInterval`, newest value winning.
    public var highRatePaths: Set<JSONPointer>
    /// Minimum spacing of two sends of the same high-rate path, nanoseconds.
    public var highRateInterval: Int64

    /// Creates a configuration; defaults: 8 in flight, 80 % pacing, `/contentOffset` at ≤ 30 Hz.
    public init(
        maxInFlight: Int = 8, pacingShare: Double = 0.8,
        highRatePaths: Set<JSONPointer> = [JSONPointer(tokens: ["contentOffset"])],
        highRateInterval: Int64 = 33_000_000
    ) {
        self.maxInFlight = max(1, maxInFlight)
        self.pacingShare = min(max(pacingShare, 0.01), 1)
        self.highRatePaths = highRatePaths
        self.highRateInterval = max(0, highRateInterval)
    }
}
