import Testing
import TandemProtocol
@testable import TandemClient

@Suite struct HeartbeatMonitorTests {
    static let ms: Int64 = 1_000_000
    static let settings = HeartbeatSettings(interval: 10_000, timeout: 30_000)

    @Test func pingsEveryIntervalAndMeasuresTheRoundTrip() {
        var monitor = HeartbeatMonitor(settings: Self.settings, now: 0)
        #expect(monitor.tick(now: 9_999 * Self.ms).isEmpty)
        let actions = monitor.tick(now: 10_000 * Self.ms)
        #expect(actions == [.sendPing(t: 10)])
        monitor.pongReceived(t: 10, now: 10_080 * Self.ms)
        #expect(abs((monitor.estimator.latest ?? 0) - 0.08) < 1e-9)
        #expect(monitor.tick(now: 19_999 * Self.ms).isEmpty)
        #expect(monitor.tick(now: 20_000 * Self.ms) == [.sendPing(t: 20)])
    }

    @Test func pongDeadlineFollowsTheMeasuredRTTWithinBounds() {
        var monitor = HeartbeatMonitor(settings: Self.settings, estimator: RTTEstimator(minimumTimeout: 1, maximumTimeout: 20), now: 0)
        #expect(monitor.pongTimeout == 5_000 * Self.ms, "initial timeout before any sample")
        _ = monitor.tick(now: 10_000 * Self.ms)
        monitor.pongReceived(t: 10, now: 10_100 * Self.ms)
        #expect(monitor.pongTimeout == 1_000 * Self.ms, "0.1 + 4 × 0.05 = 0.3 s, raised to the 1 s floor")
        var slow = HeartbeatMonitor(settings: Self.settings, estimator: RTTEstimator(minimumTimeout: 1, maximumTimeout: 20), now: 0)
        _ = slow.tick(now: 10_000 * Self.ms)
        slow.pongReceived(t: 10, now: 19_000 * Self.ms)
        #expect(slow.pongTimeout == 20_000 * Self.ms, "9 + 4 × 4.5 = 27 s, capped at 20 s")
    }

    @Test func overduePongDeclaresTheConnectionDead() {
        var monitor = HeartbeatMonitor(settings: Self.settings, now: 0)
        _ = monitor.tick(now: 10_000 * Self.ms)
        monitor.frameReceived(now: 12_000 * Self.ms) // data keeps flowing, but no pong
        #expect(monitor.tick(now: 15_000 * Self.ms).isEmpty)
        #expect(monitor.nextDeadline == 15_000 * Self.ms)
        #expect(monitor.tick(now: 15_001 * Self.ms) == [.declareDead(.pongOverdue(nanoseconds: 5_001 * Self.ms))])
        #expect(monitor.tick(now: 16_000 * Self.ms).isEmpty, "declared once")
    }

    @Test func silenceForTwoIntervalsDeclaresTheConnectionDead() {
        var monitor = HeartbeatMonitor(settings: HeartbeatSettings(interval: 1_000, timeout: 3_000),
                                       estimator: RTTEstimator(minimumTimeout: 5, maximumTimeout: 20, initialTimeout: 5), now: 0)
        _ = monitor.tick(now: 1_000 * Self.ms)
        #expect(monitor.tick(now: 1_999 * Self.ms).isEmpty)
        #expect(monitor.tick(now: 2_000 * Self.ms) == [.declareDead(.silent(nanoseconds: 2_000 * Self.ms))])
    }

    @Test func framesKeepTheConnectionAlive() {
        var monitor = HeartbeatMonitor(settings: Self.settings, now: 0)
        var now: Int64 = 0
        while now < 120_000 * Self.ms {
            now += 500 * Self.ms
            monitor.frameReceived(now: now)
            for action in monitor.tick(now: now) {
                guard case .sendPing(let t) = action else {
                    Issue.record("unexpected \(action)")
                    return
                }
                monitor.pongReceived(t: t, now: now + 50 * Self.ms)
            }
        }
    }

    @Test func stalePongOnlyCountsAsAFrame() {
        var monitor = HeartbeatMonitor(settings: Self.settings, now: 0)
        _ = monitor.tick(now: 10_000 * Self.ms)
        monitor.pongReceived(t: 3, now: 10_050 * Self.ms)
        #expect(monitor.estimator.latest == nil)
        #expect(monitor.tick(now: 15_001 * Self.ms).count == 1, "the real ping is still outstanding")
    }

    @Test func failuresExplainThemselves() {
        #expect(HeartbeatFailure.silent(nanoseconds: 20_000 * Self.ms).description.contains("20.0 s"))
    }
}
