/// How often a failing step is tried again, and how long to wait between attempts: a `Backoff`
/// (exponential, capped at `maxDelay`, reduced by up to `jitter` of itself using the run's random source).
public struct RetryPolicy: Sendable {
    /// Total attempts including the first (1 means no retry).
    public var maxAttempts: Int
    /// The waits between attempts.
    public var backoff: Backoff
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
        self.init(maxAttempts: maxAttempts,
                  backoff: Backoff(base: initialDelay, multiplier: multiplier, cap: maxDelay, jitter: jitter),
                  shouldRetry: shouldRetry)
    }

    /// Creates a policy from its backoff (at least one attempt).
    public init(maxAttempts: Int, backoff: Backoff, shouldRetry: @escaping @Sendable (any Error) -> Bool = { _ in true }) {
        self.maxAttempts = max(1, maxAttempts)
        self.backoff = backoff
        self.shouldRetry = shouldRetry
    }

    /// The wait before retry number `retry` (1 for the first retry), given a random number in `0..<1`:
    /// `min(maxDelay, initialDelay × multiplier^(retry-1)) × (1 − jitter × random)`, to the nanosecond.
    public func delay(beforeRetry retry: Int, random: Double) -> Duration {
        backoff.delay(afterFailures: retry, unit: random)
    }
}
