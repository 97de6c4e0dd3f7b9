import Synchronization
import TandemTesting
import Testing
import TandemKit

private final class NameLog: Sendable {
    private let names = Mutex<[String]>([])
    var all: [String] { names.withLock { $0 } }
    func append(_ name: String) { names.withLock { $0.append(name) } }
}

/// The manual clock that drives feedback durations and callback time-outs in tests.
@Suite struct FeedbackManualClockTests {
    @Test func sleepersWakeInDeadlineOrderOnlyWhenTimeReachesThem() async throws {
        let clock = ManualClock()
        let woken = NameLog()
        let tasks = [("late", 300), ("early", 100), ("middle", 200)].map { name, ms in
            Task {
                try await clock.sleep(for: .milliseconds(ms))
                woken.append(name)
            }
        }
        await clock.waitForSleepers(3)
        clock.advance(by: .milliseconds(99))
        #expect(clock.sleeperCount == 3)
        clock.advance(by: .milliseconds(101))
        #expect(clock.sleeperCount == 1)
        clock.advance(to: ManualClock.Instant(offset: .milliseconds(300)))
        for task in tasks { try await task.value }
        #expect(Set(woken.all) == ["early", "middle", "late"])
        #expect(clock.now == ManualClock.Instant(offset: .milliseconds(300)))
    }

    @Test func aDeadlineInThePastReturnsAtOnce() async throws {
        let clock = ManualClock(now: ManualClock.Instant(offset: .seconds(5)))
        try await clock.sleep(until: ManualClock.Instant(offset: .seconds(4)))
        try await clock.sleep(for: .zero)
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingASleeperThrowsAndRemovesIt() async {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
        await clock.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func aTaskCancelledBeforeSleepingThrowsAtOnce() async {
        let clock = ManualClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func timeNeverRunsBackwards() {
        let clock = ManualClock()
        clock.advance(by: .seconds(2))
        clock.advance(by: .seconds(-1))
        clock.advance(to: ManualClock.Instant(offset: .seconds(1)))
        #expect(clock.now.offset == .seconds(2))
        #expect(clock.now.duration(to: clock.now.advanced(by: .seconds(3))) == .seconds(3))
        #expect(clock.now.description == "t+2.0 seconds")
    }
}
