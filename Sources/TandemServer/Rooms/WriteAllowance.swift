import TandemSynchronization
import TandemProtocol

/// How fast one user may change one room, whatever the path: a token bucket per (room, user) that the
/// socket's patches and the rooms API's writes both take from, at the socket's message rate and burst. A
/// user with several connections, or one who writes over HTTP, gets no more than one connection would.
///
/// Thread-safe (one mutex). Memory stays bounded: past `maxTracked` buckets, the full ones (users idle for
/// a burst's worth of time) are dropped, since a new bucket starts full anyway.
final class WriteAllowance: Sendable {
    private struct Key: Hashable {
        var room: String
        var user: String
    }

    private let rate: Double
    private let burst: Double
    private let maxTracked: Int
    private let buckets = Locked<[Key: TokenBucket]>([:])

    /// Writes per second and burst per user and room; a rate of 0 allows everything.
    init(rate: Double, burst: Double, maxTracked: Int = 100_000) {
        self.rate = rate
        self.burst = burst
        self.maxTracked = maxTracked
    }

    /// Whether any write can be refused (a rate of 0 allows everything): callers skip reading the clock otherwise.
    var limits: Bool { rate > 0 }

    /// Takes one write for `user` in `room` at `now` (monotonic nanoseconds): nil when allowed, else the
    /// nanoseconds until the next write would be.
    func take(room: String, user: String, now: Int64) -> Int64? {
        guard rate > 0 else { return nil }
        return buckets.withLock { buckets in
            let key = Key(room: room, user: user)
            var bucket = buckets[key] ?? TokenBucket(rate: rate, burst: burst, now: now)
            let wait: Int64? = bucket.take(now: now) ? nil : max(1, bucket.delayUntilAvailable(now: now))
            buckets[key] = bucket
            if buckets.count > maxTracked {
                buckets = buckets.filter { _, value in
                    var value = value
                    return value.available(now: now) < burst
                }
            }
            return wait
        }
    }

    /// How many buckets are kept (bounded by `maxTracked` plus the busy ones).
    var trackedCount: Int { buckets.withLock { $0.count } }
}
