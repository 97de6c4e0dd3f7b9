import TandemWire

/// Reconnect delays: exponential growth with full jitter, so many clients that lost the same server
/// do not reconnect in lockstep. The delay for attempt n is uniform in [0, min(cap, base·2ⁿ⁻¹)).
package struct RedisBackoff: Sendable, Equatable {
    /// The ceiling of the first delay.
    package var base: Duration
    /// The largest ceiling any delay may have.
    package var cap: Duration

    /// Defaults: 50 ms growing to at most 5 s.
    package init(base: Duration = .milliseconds(50), cap: Duration = .seconds(5)) {
        self.base = base
        self.cap = cap
    }

    /// The ceiling for failed attempt `attempt` (1-based).
    package func ceiling(attempt: Int) -> Duration {
        let doublings = min(max(attempt - 1, 0), 30)
        let grown = base * (1 << doublings)
        return min(grown, cap)
    }

    /// The delay after failed attempt `attempt`, given `unit`, a random number in [0, 1).
    package func delay(attempt: Int, unit: Double) -> Duration {
        ceiling(attempt: attempt) * min(max(unit, 0), 1)
    }

    /// The delay after failed attempt `attempt`, its jitter drawn from `random` (53 bits, uniform in [0, 1)).
    package func delay(attempt: Int, random: any RandomByteSource) -> Duration {
        let bits = random.bytes(count: 8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return delay(attempt: attempt, unit: Double(bits >> 11) * 0x1p-53)
    }
}
