/// The waits between tries of something that keeps failing: exponential growth with jitter.
///
/// After the n-th failure (n ≥ 1) the wait's bound is `min(cap, base × multiplier^(n − 1))`, and the wait
/// is that bound less a random part of it: `bound × (1 − jitter × u)`, `u` uniform in `0..<1`. With the
/// default full jitter (`jitter` 1) a wait is uniform in `(0, bound]`, so that a crowd of clients that
/// lost the same server at once comes back spread out instead of in waves. The random source is passed
/// in, so that a test pins the draws.
///
/// One rule for every retry in the package: a client's reconnects, the Redis client's, webhook
/// deliveries and a pipeline step's retries.
public struct Backoff: Sendable, Equatable {
    /// The bound of the first wait.
    public var base: Duration
    /// How much each further bound grows (at least 1).
    public var multiplier: Double
    /// The largest bound of any wait.
    public var cap: Duration
    /// The fraction (0...1) of each bound that is randomized away: 1 (full jitter) draws from the whole
    /// range, 0 always waits the bound.
    public var jitter: Double

    /// A backoff; values are clamped to sensible ranges (durations at least zero, the multiplier at least
    /// 1, the jitter in 0...1). A cap below the base bounds every wait, the first too.
    public init(base: Duration, multiplier: Double = 2, cap: Duration, jitter: Double = 1) {
        self.base = max(.zero, base)
        self.multiplier = max(1, multiplier)
        self.cap = max(.zero, cap)
        self.jitter = min(1, max(0, jitter))
    }

    /// The bound of the wait after the `failures`-th failure in a row (1 for the first; less counts as 1).
    public func bound(afterFailures failures: Int) -> Duration {
        let capNanoseconds = Self.nanoseconds(cap)
        var bound = Self.nanoseconds(base)
        var doublings = max(0, failures - 1)
        // Grows by repeated multiplication, stopping at the cap (or at once from a zero base), so that no
        // count overflows and none loops long.
        while doublings > 0 && bound > 0 && bound < capNanoseconds && multiplier > 1 {
            bound *= multiplier
            doublings -= 1
        }
        return Self.duration(nanoseconds: min(bound, capNanoseconds))
    }

    /// The wait after the `failures`-th failure in a row, given `unit`, a random number in `0..<1` (values
    /// outside are clamped): `bound × (1 − jitter × unit)`, to the nanosecond.
    public func delay(afterFailures failures: Int, unit: Double) -> Duration {
        let bound = Self.nanoseconds(bound(afterFailures: failures))
        return Self.duration(nanoseconds: bound * (1 - jitter * min(1, max(0, unit))))
    }

    /// The wait after the `failures`-th failure in a row, its jitter drawn from `generator`.
    public func delay(afterFailures failures: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        delay(afterFailures: failures, unit: Double.random(in: 0..<1, using: &generator))
    }

    /// A count of nanoseconds as a duration, rounded, saturating at `Int64`'s bounds (a cap of centuries).
    private static func duration(nanoseconds: Double) -> Duration {
        .nanoseconds(nanoseconds >= 9.2e18 ? Int64.max : Int64(nanoseconds.rounded()))
    }

    private static func nanoseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    }
}
