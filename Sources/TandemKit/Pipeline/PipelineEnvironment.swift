/// What a pipeline run needs from the outside world: a clock for retry back-off and timeouts, and
/// a random source for back-off jitter. Tests inject a manual clock and a fixed random source so
/// no test sleeps for real.
public struct PipelineEnvironment: Sendable {
    /// The clock used for back-off delays and timeouts.
    public var clock: any Clock<Duration>
    /// Returns a number in `0..<1`; used for jitter.
    public var random: @Sendable () -> Double

    /// Creates an environment; the defaults are the continuous clock and the system random source.
    public init(clock: any Clock<Duration> = ContinuousClock(), random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.clock = clock
        self.random = random
    }

    /// The continuous clock and the system random source.
    public static var live: Self { Self() }
}
