import TandemProtocol

/// Flow-control settings of a `SyncEngine`.
public struct SyncEngineConfiguration: Sendable, Hashable {
    /// Most patches other than high-rate values sent and not yet answered at once (≥ 1); also the
    /// high-rate values' window until the connection's round trip is measured (`SyncEngine.highRateWindow`).
    public var maxInFlight: Int
    /// Share of the announced `rate` and `burst` the engine uses, leaving room for jitter and for
    /// pings and presence messages (SPEC: ≤ 80 %).
    public var pacingShare: Double
    /// Paths whose values change at a high rate (scroll offsets); a patch made only of ops at or
    /// below one of them goes out spaced by the link's round trip (`SyncEngine.highRateSpacing`), at
    /// most `highRateInterval` apart, newest value winning.
    public var highRatePaths: Set<JSONPointer>
    /// The longest spacing of two sends of one high-rate path, nanoseconds: on a link whose patches
    /// come back in under four times this, values go closer together (down to every frame).
    public var highRateInterval: Int64

    /// Creates a configuration; defaults: 8 in flight, 80 % pacing, `/contentOffset` at every frame on a
    /// fast link and at least at 30 Hz on any other.
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
