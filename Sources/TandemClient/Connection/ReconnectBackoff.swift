/// Exponential backoff with full jitter: the delay before attempt `n` (0-based) is uniform in
/// `0 ... min(cap, base · 2^n)`.
///
/// Full jitter spreads a crowd of clients that lost the same server, so their reconnects do not
/// arrive in waves. The random source is injected, so tests can pin the draws.
public struct ReconnectBackoff: Sendable, Equatable {
    /// Delay ceiling for the first attempt, seconds.
    public var base: Double
    /// Largest delay ever drawn, seconds.
    public var cap: Double

    /// Creates a backoff policy (seconds).
    public init(base: Double = 0.25, cap: Double = 30) {
        self.base = base
        self.cap = cap
    }

    /// The upper bound of the delay for `attempt`.
    public func ceiling(attempt: Int) -> Double {
        // 2^n overflows Double only far past any cap; stop doubling once past it.
        let exponent = min(max(attempt, 0), 62)
        return min(cap, base * Double(UInt64(1) << UInt64(exponent)))
    }

    /// A delay for `attempt`, drawn uniformly from `0 ... ceiling(attempt:)` with `generator`.
    public func delay(attempt: Int, using generator: inout some RandomNumberGenerator) -> Double {
        Double.random(in: 0...ceiling(attempt: attempt), using: &generator)
    }
}
