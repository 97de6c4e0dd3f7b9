import TandemKit
import TandemProtocol

/// When a failed delivery is tried again: a `Backoff` with full jitter (a random wait up to
/// `base × 2^(failures − 1)`, at most `cap`), so that many events failing at once spread out, and no
/// more tries once the event is older than `maxAge`.
package struct WebhookRetryPolicy: Sendable, Equatable {
    /// The waits between tries.
    package var backoff: Backoff
    /// How long after it happened an event is still tried; then it is dropped and counted.
    package var maxAge: Duration

    /// Defaults: first retry within 1 s, waits doubling up to 10 minutes, tried for 24 hours. The base is
    /// at least a millisecond (the dispatcher's unit) and the cap at least the base.
    package init(base: Duration = .seconds(1), cap: Duration = .seconds(600), maxAge: Duration = .seconds(86_400)) {
        let base = max(.milliseconds(1), base)
        backoff = Backoff(base: base, cap: max(base, cap))
        self.maxAge = maxAge
    }

    /// The wait after the `failures`-th failed try (1 for the first), in whole milliseconds (the dispatcher's clock).
    package func delay(afterFailures failures: Int, using random: inout some RandomNumberGenerator) -> Int64 {
        backoff.delay(afterFailures: failures, using: &random).totalMilliseconds
    }
}
