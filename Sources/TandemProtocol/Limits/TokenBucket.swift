/// A token bucket: `rate` tokens per second refill a bucket of `burst` tokens; each message
/// takes one. The server uses it to enforce a connection's message rate, a client to pace itself.
///
/// The bucket starts full. Time is passed in as monotonic nanoseconds, so the bucket is a pure
/// value: deterministic in tests and free of clock reads on the hot path.
public struct TokenBucket: Sendable, Equatable {
    /// Tokens added per second; 0 means unlimited (every `take` succeeds).
    public let rate: Double
    /// Bucket capacity.
    public let burst: Double
    private var tokens: Double
    private var lastRefill: Int64

    /// Creates a full bucket at time `now` (monotonic nanoseconds).
    public init(rate: Double, burst: Double, now: Int64) {
        self.rate = max(0, rate)
        self.burst = max(1, burst)
        tokens = max(1, burst)
        lastRefill = now
    }

    /// Whether the bucket limits anything.
    public var isUnlimited: Bool { rate == 0 }

    /// Takes one token if there is one at `now`; returns whether it could.
    public mutating func take(now: Int64) -> Bool {
        guard rate > 0 else { return true }
        refill(now: now)
        guard tokens >= 1 - Self.tolerance else { return false }
        tokens = max(0, tokens - 1)
        return true
    }

    /// Nanoseconds from `now` until a token is available (0 when one is available now).
    public mutating func delayUntilAvailable(now: Int64) -> Int64 {
        guard rate > 0 else { return 0 }
        refill(now: now)
        guard tokens < 1 - Self.tolerance else { return 0 }
        return Int64(((1 - tokens) / rate * 1e9).rounded(.up))
    }

    /// Tokens available at `now`, for diagnostics and tests.
    public mutating func available(now: Int64) -> Double {
        refill(now: now)
        return tokens
    }

    /// Whole-nanosecond timestamps make a token due at t = 1/rate arrive a hair short of 1;
    /// this slack keeps a sender that paces exactly at the rate from being refused by rounding.
    private static let tolerance = 1e-6

    private mutating func refill(now: Int64) {
        // A clock that steps backwards adds nothing instead of taking tokens away.
        guard now > lastRefill else { return }
        tokens = min(burst, tokens + Double(now - lastRefill) * rate / 1e9)
        lastRefill = now
    }
}
