import Testing
@testable import TandemWire

@Suite struct IOMonotonicTimeTests {
    @Test func negativeDurationsCountAsZero() {
        // -5 ms has seconds == 0 and negative attoseconds: it must not trap.
        #expect(MonotonicTime.nanoseconds(.milliseconds(-5)) == 0)
        #expect(MonotonicTime.nanoseconds(.seconds(-3)) == 0)
        #expect(MonotonicTime.nanoseconds(.zero) == 0)
    }

    @Test func positiveDurationsAreWholeNanosecondsAndSaturate() {
        #expect(MonotonicTime.nanoseconds(.milliseconds(1_500)) == 1_500_000_000)
        #expect(MonotonicTime.nanoseconds(.nanoseconds(7)) == 7)
        #expect(MonotonicTime.nanoseconds(.seconds(Int64.max)) == .max)
        #expect(MonotonicTime.deadline(after: .seconds(1), from: .max - 10) == .max)
    }

    @Test func aTimerWithANegativeDelayRunsPromptly() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            group.next().schedule(after: .milliseconds(-5)) { done.resume() }
        }
    }
}
