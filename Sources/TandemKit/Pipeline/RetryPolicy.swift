/// How often a failing step is tried again, and how long to wait between attempts: exponential
/// back-off capped at `maxDelay`, reduced by up to `jitter` of itself using the run's random source.
public struct RetryPolicy: Sendable {
    /// Total attempts including the first (1 means no retry).
    public var maxAttempts: Int
    /// The wait before the first retry.
    public var initialDelay: Duration
    /// Each further wait is the previous one times this factor.
    public var multiplier: Double
    /// No wait is longer than this.
    public var maxDelay: Duration
    /// The fraction (0...1) of each wait that is randomized away; spreads retries of many clients.
    public var jitter: Double
    /// Whether an error is worth retrying; the default retries every error.
    public var shouldRetry: @Sendable (any Error) -> Bool

    /// Creates a policy; values are clamped to sensible ranges (at least one attempt, jitter in 0...1,
    /// multiplier at least 1).
    public init(
        maxAttempts: Int,
        initialDelay: Duration = .milliseconds(100),
        multiplier: Double = 2,
        maxDelay: Duration = .seconds(30),
        jitter: Double = 0.5,
        shouldRetry: @escaping @Sendable (any Error) -> Bool = { _ in true }
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = max(.zero, initialDelay)
        self.multiplier = max(1, multiplier)
        self.maxDelay = max(.zero, maxDelay)
        self.jitter = min(1, max(0, jitter))
        self.shouldRetry = shouldRetry
    }

    /// The wait before retry number `retry` (1 for the first retry), given a random number in `0..<1`:
    /// `min(maxDelay, initialDelay × multiplier^(retry-1)) × (1 − jitter × random)`, rounded to nanoseconds.
    public func delay(beforeRetry retry: Int, random: Double) -> Duration {
        let base = Self.seconds(initialDelay) * pow(multiplier, Double(max(0, retry - 1)))
        let capped = min(base, Self.seconds(maxDelay))
        let jittered = capped * (1 - jitter * min(1, max(0, random)))
        return .nanoseconds(Int64((jittered * 1e9).rounded()))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    private func pow(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        var remaining = Int(exponent)
        // Integer exponents only; capped so huge retry counts cannot overflow to infinity early.
        while remaining > 0 && result < 1e12 {
            result *= base
            remaining -= 1
        }
        return result
    }
}
