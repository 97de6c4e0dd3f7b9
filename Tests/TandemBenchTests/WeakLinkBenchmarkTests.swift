import Testing
@testable import TandemBench

@Suite struct WeakLinkBenchmarkTests {
    @Test func aTraceIsItsSeedsAt60HzWithUniqueOffsetsAndPauses() {
        let trace = ScrollTrace(seed: 7)
        #expect(trace.samples == ScrollTrace(seed: 7).samples)
        #expect(trace.samples != ScrollTrace(seed: 8).samples)
        #expect(Set(trace.samples.map(\.y)).count == trace.samples.count, "every offset names its sample")
        let gaps = zip(trace.samples.dropFirst(), trace.samples).map { $0.at - $1.at }
        #expect(gaps.allSatisfy { $0 >= ScrollTrace.frame })
        #expect(gaps.contains { $0 >= ScrollTrace.frame * 6 }, "pauses")
        #expect(trace.samples.count > 200 && trace.samples.last!.at <= .seconds(6))
    }

    /// Three samples at 0, 0.1 and 0.2 s; frames every 50 ms.
    private let trace = ScrollTrace(samples: [.init(at: .zero, y: 1), .init(at: .milliseconds(100), y: 2), .init(at: .milliseconds(200), y: 3)])

    @Test func stalenessIsZeroOnTheLeadersCurrentOffsetElseTheShownOffsetsAge() {
        let frames: [WeakLinkFigures.Frame] = [
            .init(at: 0.05, shown: 1, arrived: 1),   // current: 0
            .init(at: 0.15, shown: 1, arrived: 0),   // the leader moved to 2 at 0.1 after holding 1: one frame before that
            .init(at: 0.25, shown: 3, arrived: 2),   // current again, two arrived in one frame
        ]
        let figures = WeakLinkFigures(trace: trace, frames: frames)
        #expect(abs(figures.max - (0.15 - (0.1 - WeakLinkFigures.seconds(ScrollTrace.frame)))) < 1e-9 && figures.p50 == 0)
        #expect(figures.settle.map { abs($0 - 0.05) < 1e-9 } == true, "the last offset, set at 0.2 s, shown at 0.25 s")
        #expect(figures.bunchedFrames == 1 && figures.backwards == 0)
    }

    @Test func anOffsetHeldThroughAPauseIsNotCountedAsLag() {
        let paused = ScrollTrace(samples: [.init(at: .zero, y: 1), .init(at: .seconds(1), y: 2)])
        // The follower shows 1 until 1.05 s: the leader held it for a second, then moved on at 1 s.
        let figures = WeakLinkFigures(trace: paused, frames: [.init(at: 0.5, shown: 1, arrived: 1), .init(at: 1.05, shown: 1, arrived: 0),
                                                              .init(at: 1.1, shown: 2, arrived: 1)])
        let frame = WeakLinkFigures.seconds(ScrollTrace.frame)
        #expect(abs(figures.max - (0.05 + frame)) < 1e-9, "lag from one frame before the change, not from the offset's first showing")
    }

    @Test func theSmoothedViewIsAsOldAsTheLeadersMomentItShowsAndJudderIsTheChangeOfVelocity() {
        let frame = WeakLinkFigures.seconds(ScrollTrace.frame)
        let frames: [WeakLinkFigures.Frame] = [
            // Half way from 1 to 2 at 0.15 s: half way between the moments the leader set them (each held
            // through a pause counts as set a frame before the next change: 0.1 and 0.2 less a frame).
            .init(at: 0.15, shown: 2, arrived: 1, smoothed: .init(from: 1, to: 2, fraction: 0.5)),
            // Resting on the leader's current offset: not stale.
            .init(at: 0.25, shown: 3, arrived: 1, smoothed: .init(from: 3, to: 3, fraction: 0)),
        ]
        let figures = WeakLinkFigures(trace: trace, frames: frames)
        #expect(abs(figures.smoothedP99 - (0.15 - (0.15 - frame))) < 1e-9, "\(figures.smoothedP99)")
        #expect(figures.smoothedP50 == 0)
        #expect(WeakLinkFigures.judder([0, 1, 2, 3]) == 0, "steady motion has none")
        #expect(WeakLinkFigures.judder([0, 0, 3, 3]) == 6, "a jump: velocity 0 → 3 → 0")
    }

    @Test func aFollowerThatGoesBackOrNeverSettlesIsSeen() {
        let frames: [WeakLinkFigures.Frame] = [
            .init(at: 0.15, shown: 2, arrived: 1),
            .init(at: 0.25, shown: 1, arrived: 1),
        ]
        let figures = WeakLinkFigures(trace: trace, frames: frames)
        #expect(figures.backwards == 1)
        #expect(figures.settle == nil)
    }

    @Test(arguments: [WeakLinkBenchmark.System.tandem, .naive, .floor])
    func aShortRunOnAGoodLinkEndsOnTheLeadersLastOffset(system: WeakLinkBenchmark.System) async throws {
        let trace = ScrollTrace(seed: 3, length: .seconds(1))
        let result = try await WeakLinkBenchmark.run(system, profile: .good, trace: trace)
        #expect(result.figures.settle != nil, "the follower showed the last offset")
        #expect(result.figures.backwards == 0)
        #expect(result.messages > 0 && result.followerLinkBytes > 0)
        #expect(result.reconnects == 0)
    }

    /// Sessions several heartbeat intervals long through a congested link's stalls (800 ms every 5 s, on
    /// 150 ± 60 ms of delay): late pongs may make a link weak for a while, never dead.
    @Test func stallsShorterThanTwoHeartbeatIntervalsNeverReconnect() async throws {
        let trace = ScrollTrace(seed: 5, length: .seconds(6))
        let result = try await WeakLinkBenchmark.run(.tandem, profile: .congested, trace: trace, heartbeat: .seconds(1))
        #expect(result.reconnects == 0, "\(result.degraded) weak-link warnings")
        #expect(result.figures.settle != nil && result.figures.backwards == 0)
    }
}
