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

    @Test func anOverduePongIsAMissRetriedWithADoubledDeadline() {
        var monitor = HeartbeatMonitor(settings: Self.settings, now: 0)
        #expect(monitor.tick(now: 10_000 * Self.ms) == [.sendPing(t: 10)])
        #expect(monitor.tick(now: 15_000 * Self.ms).isEmpty)
        #expect(monitor.nextDeadline == 15_000 * Self.ms)
        monitor.frameReceived(now: 12_000 * Self.ms)
        // Past the 5 s deadline: a miss, not a death; the retry waits twice as long.
        #expect(monitor.tick(now: 15_001 * Self.ms) == [.sendPing(t: 15.001)])
        #expect(monitor.isDegraded && monitor.misses == 1)
        #expect(monitor.nextDeadline == 25_001 * Self.ms)
        // The first ping's pong, late: the link is alive, the miss is forgiven and the round trip (6 s) is learned.
        monitor.pongReceived(t: 10, now: 16_000 * Self.ms)
        #expect(!monitor.isDegraded && monitor.misses == 0)
        #expect(monitor.estimator.latest == 6)
        // The retried ping is still answered normally.
        monitor.pongReceived(t: 15.001, now: 16_100 * Self.ms)
        #expect(monitor.tick(now: 25_000 * Self.ms).isEmpty)
        #expect(monitor.tick(now: 25_001 * Self.ms) == [.sendPing(t: 25.001)], "the schedule continues from the retry")
    }

    @Test func anyFrameClearsTheMisses() {
        var monitor = HeartbeatMonitor(settings: Self.settings, now: 0)
        _ = monitor.tick(now: 10_000 * Self.ms)
        _ = monitor.tick(now: 15_001 * Self.ms)
        #expect(monitor.misses == 1)
        monitor.frameReceived(now: 16_000 * Self.ms) // a patch event: the server is there
        #expect(monitor.misses == 0 && !monitor.isDegraded)
        // Misses count again from one; with a frame between every two, the link never dies of them.
        var now: Int64 = 16_000 * Self.ms
        for _ in 0..<20 {
            now = monitor.nextDeadline + Self.ms
            let actions = monitor.tick(now: now)
            #expect(!actions.contains { if case .declareDead = $0 { true } else { false } })
            monitor.frameReceived(now: now)
        }
    }

    @Test func consecutiveMissesWithNothingInBetweenDeclareTheLinkDead() {
        var monitor = HeartbeatMonitor(settings: HeartbeatSettings(interval: 10_000, timeout: 30_000),
                                       estimator: RTTEstimator(minimumTimeout: 1, maximumTimeout: 20, initialTimeout: 1), now: 0)
        #expect(monitor.tick(now: 10_000 * Self.ms) == [.sendPing(t: 10)])
        #expect(monitor.tick(now: 11_001 * Self.ms) == [.sendPing(t: 11.001)], "miss 1, retried with 2 s")
        #expect(monitor.nextDeadline == 13_001 * Self.ms)
        #expect(monitor.tick(now: 13_002 * Self.ms) == [.sendPing(t: 13.002)], "miss 2, retried with 4 s")
        #expect(monitor.nextDeadline == 17_002 * Self.ms)
        #expect(monitor.misses == 2)
        #expect(monitor.tick(now: 17_003 * Self.ms) == [.declareDead(.pongsMissed(count: 3, nanoseconds: 7_003 * Self.ms))])
        #expect(!monitor.isDegraded, "dead, not degraded")
        #expect(monitor.tick(now: 18_000 * Self.ms).isEmpty, "declared once")
    }

    @Test func theNumberOfMissesIsConfigurable() {
        var monitor = HeartbeatMonitor(settings: Self.settings, estimator: RTTEstimator(initialTimeout: 1), maxMisses: 1, now: 0)
        _ = monitor.tick(now: 10_000 * Self.ms)
        #expect(monitor.tick(now: 11_001 * Self.ms) == [.declareDead(.pongsMissed(count: 1, nanoseconds: 1_001 * Self.ms))])
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
        #expect(monitor.tick(now: 15_001 * Self.ms) == [.sendPing(t: 15.001)], "the real ping was still outstanding: missed, retried")
    }

    @Test func failuresExplainThemselves() {
        #expect(HeartbeatFailure.silent(nanoseconds: 20_000 * Self.ms).description.contains("20.0 s"))
        #expect(HeartbeatFailure.pongsMissed(count: 3, nanoseconds: 7_000 * Self.ms).description.contains("3 pings in a row over 7.0 s"))
    }
}
