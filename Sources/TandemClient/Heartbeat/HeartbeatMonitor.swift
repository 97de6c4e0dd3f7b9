import TandemProtocol

/// The client's heartbeat: a ping every `interval`, a pong deadline that follows the measured round
/// trip (`RTTEstimator.timeout`), and two ways a link is declared dead.
///
/// An overdue pong is a miss, not a death (weak Wi-Fi delays pongs far more often than it loses the
/// connection): the ping is retried at once with the deadline doubled (RFC 6298 §5.5), the monitor
/// reports itself `isDegraded`, and any frame that arrives proves the link alive and clears the misses.
/// The link is dead only after `maxMisses` consecutive misses with no frame in between, or when no frame
/// at all arrived for 2 × interval (a half-open socket). A pong that comes back after its ping was
/// retried still gives a round-trip sample (each ping has its own `t`), so the deadline learns a slow link.
///
/// Pure: the session calls `tick(now:)` at `nextDeadline` and reports frames and pongs; times are
/// nanoseconds of one monotonic clock. Ping `t` values are that clock in seconds, so a pong's `t`
/// gives the round trip without bookkeeping. At most one ping awaits its deadline at a time.
public struct HeartbeatMonitor: Sendable {
    /// Ping spacing, nanoseconds.
    public let interval: Int64
    /// Consecutive missed pongs (no frame in between) that declare the link dead.
    public let maxMisses: Int
    /// The round-trip estimator (its `timeout` is the pong deadline of a first ping).
    public private(set) var estimator: RTTEstimator
    /// Pongs missed in a row since the last frame arrived.
    public private(set) var misses = 0
    private var lastFrame: Int64
    private var lastPing: Int64
    private var outstanding: (t: Double, sentAt: Int64, deadline: Int64)?
    /// Pings already given up on, whose late pongs still measure the round trip (at most `maxMisses`).
    private var retried: [(t: Double, sentAt: Int64)] = []
    private var dead = false

    /// Creates a monitor for a session established at `now` with the server's `settings`.
    public init(settings: HeartbeatSettings, estimator: RTTEstimator = RTTEstimator(), maxMisses: Int = 3, now: Int64) {
        interval = max(1, Int64(settings.interval)) * 1_000_000
        self.maxMisses = max(1, maxMisses)
        self.estimator = estimator
        lastFrame = now
        lastPing = now
    }

    /// The pong deadline of a first ping, nanoseconds.
    public var pongTimeout: Int64 { Int64(estimator.timeout * 1e9) }

    /// Whether pongs are late right now: the link is up but weak (the app may say "weak network").
    public var isDegraded: Bool { misses > 0 && !dead }

    /// The next time `tick(now:)` has something to decide.
    public var nextDeadline: Int64 {
        var deadline = min(lastPing + interval, lastFrame + 2 * interval)
        if let outstanding { deadline = min(deadline, outstanding.deadline) }
        return deadline
    }

    /// Any frame arrived (data, pong, ping, close): the socket is alive, and earlier misses are forgiven.
    public mutating func frameReceived(now: Int64) {
        lastFrame = max(lastFrame, now)
        misses = 0
    }

    /// A pong arrived with `t`. A pong for the outstanding ping, or for one given up on, adds a round-trip
    /// sample; any pong counts as a received frame.
    public mutating func pongReceived(t: Double, now: Int64) {
        frameReceived(now: now)
        if let outstanding, outstanding.t == t {
            estimator.add(sample: Double(now - outstanding.sentAt) / 1e9)
            self.outstanding = nil
            retried.removeAll()
        } else if let index = retried.firstIndex(where: { $0.t == t }) {
            estimator.add(sample: Double(now - retried[index].sentAt) / 1e9)
            retried.removeSubrange(...index)
        }
    }

    /// Decides what is due at `now`: `declareDead` (once, then nothing more) or `sendPing` (on schedule, or
    /// at once as the retry of a missed pong).
    public mutating func tick(now: Int64) -> [HeartbeatAction] {
        guard !dead else { return [] }
        if now - lastFrame >= 2 * interval {
            dead = true
            return [.declareDead(.silent(nanoseconds: now - lastFrame))]
        }
        if let missed = outstanding, now > missed.deadline {
            misses += 1
            if misses >= maxMisses {
                dead = true
                return [.declareDead(.pongsMissed(count: misses, nanoseconds: now - (retried.first?.sentAt ?? missed.sentAt)))]
            }
            retried.append((missed.t, missed.sentAt))
            if retried.count > maxMisses { retried.removeFirst() }
            return [sendPing(now: now, timeout: min(pongTimeout << misses, Int64(estimator.maximumTimeout * 1e9)))]
        }
        guard outstanding == nil, now - lastPing >= interval else { return [] }
        return [sendPing(now: now, timeout: pongTimeout)]
    }

    private mutating func sendPing(now: Int64, timeout: Int64) -> HeartbeatAction {
        var t = Double(now) / 1e9
        // A retry in the same nanosecond as the ping it replaces still needs its own `t`.
        if let previous = retried.last?.t, t <= previous { t = previous.nextUp }
        outstanding = (t, now, now + max(timeout, pongTimeout))
        lastPing = now
        return .sendPing(t: t)
    }
}
