import TandemProtocol

/// The client's heartbeat: a ping every `interval`, a pong deadline that follows the measured
/// round trip (`RTTEstimator.timeout`), and the half-open check (no frame at all for 2 × interval).
///
/// Pure: the session calls `tick(now:)` at `nextDeadline` and reports frames and pongs; times are
/// nanoseconds of one monotonic clock. Ping `t` values are that clock in seconds, so a pong's `t`
/// gives the round trip without bookkeeping. At most one ping is outstanding.
public struct HeartbeatMonitor: Sendable {
    /// Ping spacing, nanoseconds.
    public let interval: Int64
    /// The round-trip estimator (its `timeout` is the pong deadline).
    public private(set) var estimator: RTTEstimator
    private var lastFrame: Int64
    private var lastPing: Int64
    private var outstanding: (t: Double, sentAt: Int64)?
    private var dead = false

    /// Creates a monitor for a session established at `now` with the server's `settings`.
    public init(settings: HeartbeatSettings, estimator: RTTEstimator = RTTEstimator(), now: Int64) {
        interval = max(1, Int64(settings.interval)) * 1_000_000
        self.estimator = estimator
        lastFrame = now
        lastPing = now
    }

    /// The pong deadline after a ping, nanoseconds.
    public var pongTimeout: Int64 { Int64(estimator.timeout * 1e9) }

    /// The next time `tick(now:)` has something to decide.
    public var nextDeadline: Int64 {
        var deadline = min(lastPing + interval, lastFrame + 2 * interval)
        if let outstanding { deadline = min(deadline, outstanding.sentAt + pongTimeout) }
        return deadline
    }

    /// Any frame arrived (data, pong, ping, close): the socket is alive.
    public mutating func frameReceived(now: Int64) {
        lastFrame = max(lastFrame, now)
    }

    /// A pong arrived with `t`. A pong for the outstanding ping adds an RTT sample; stale pongs
    /// still count as a received frame.
    public mutating func pongReceived(t: Double, now: Int64) {
        frameReceived(now: now)
        guard let outstanding, outstanding.t == t else { return }
        estimator.add(sample: Double(now - outstanding.sentAt) / 1e9)
        self.outstanding = nil
    }

    /// Decides what is due at `now`: `declareDead` (once, then nothing more) or `sendPing`.
    public mutating func tick(now: Int64) -> [HeartbeatAction] {
        guard !dead else { return [] }
        if now - lastFrame >= 2 * interval {
            dead = true
            return [.declareDead(.silent(nanoseconds: now - lastFrame))]
        }
        if let outstanding, now - outstanding.sentAt > pongTimeout {
            dead = true
            return [.declareDead(.pongOverdue(nanoseconds: now - outstanding.sentAt))]
        }
        guard outstanding == nil, now - lastPing >= interval else { return [] }
        let t = Double(now) / 1e9
        outstanding = (t, now)
        lastPing = now
        return [.sendPing(t: t)]
    }
}
