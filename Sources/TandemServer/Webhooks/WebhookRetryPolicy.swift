/// When a failed delivery is tried again: exponential backoff with full jitter (a random wait from zero
/// to `base × 2^(failures − 1)`, at most `cap`), so that many events failing at once spread out, and
/// no more tries once the event is older than `maxAge`.
package struct WebhookRetryPolicy: Sendable, Equatable {
    /// The bound of the first wait, ms.
    package var baseMilliseconds: Int64
    /// The largest bound of any wait, ms.
    package var capMilliseconds: Int64
    /// How long after it happened an event is still tried, ms; then it is dropped and counted.
    package var maxAgeMilliseconds: Int64

    /// Defaults: first retry within 1 s, waits doubling up to 10 minutes, tried for 24 hours.
    package init(baseMilliseconds: Int64 = 1_000, capMilliseconds: Int64 = 600_000, maxAgeMilliseconds: Int64 = 86_400_000) {
        self.baseMilliseconds = max(1, baseMilliseconds)
        self.capMilliseconds = max(self.baseMilliseconds, capMilliseconds)
        self.maxAgeMilliseconds = maxAgeMilliseconds
    }

    /// The bound of the wait after the `failures`-th failed try (1 for the first).
    package func bound(afterFailures failures: Int) -> Int64 {
        let doublings = min(max(0, failures - 1), 40)
        let (bound, overflow) = baseMilliseconds.multipliedReportingOverflow(by: Int64(1) << doublings)
        return overflow ? capMilliseconds : min(bound, capMilliseconds)
    }

    /// The wait after the `failures`-th failed try: uniform in `0...bound`.
    package func delay(afterFailures failures: Int, using random: inout some RandomNumberGenerator) -> Int64 {
        Int64.random(in: 0...bound(afterFailures: failures), using: &random)
    }
}
