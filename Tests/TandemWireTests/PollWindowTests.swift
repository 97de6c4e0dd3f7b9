import Testing
@testable import TandemWire

@Suite struct PollWindowTests {
    private static let ms: UInt64 = 1_000_000

    @Test func aLoopThatWorkedMostOfAnEpochPollsLongAndGoesBackToShortOnceIdle() {
        var window = PollWindow(adapts: true, now: 0)
        #expect(window.current == PollWindow.short)
        // Busy 90 of the first 100 ms.
        for step in UInt64(0)..<10 { window.worked(from: step * 10 * Self.ms, to: (step * 10 + 9) * Self.ms) }
        #expect(window.current == PollWindow.short, "nothing is decided before the epoch is over")
        window.worked(from: 100 * Self.ms, to: 101 * Self.ms)
        #expect(window.current == PollWindow.long)
        // Then one short burst after a second of silence: that epoch was idle.
        window.worked(from: 1_101 * Self.ms, to: 1_102 * Self.ms)
        #expect(window.current == PollWindow.short)
    }

    @Test func theThresholdIsTheBusyShareOfTheEpoch() {
        func window(busyMilliseconds: UInt64) -> UInt64 {
            var window = PollWindow(adapts: true, now: 0)
            window.worked(from: 0, to: busyMilliseconds * Self.ms)
            window.worked(from: 100 * Self.ms, to: 100 * Self.ms)
            return window.current
        }
        #expect(window(busyMilliseconds: PollWindow.busyPercent - 1) == PollWindow.short)
        #expect(window(busyMilliseconds: PollWindow.busyPercent) == PollWindow.long)
        #expect(PollWindow.short < PollWindow.long)
    }

    @Test func aWindowThatDoesNotAdaptStaysShortHoweverBusy() {
        var window = PollWindow(adapts: false, now: 0)
        for step in UInt64(0)..<5 { window.worked(from: step * 100 * Self.ms, to: (step + 1) * 100 * Self.ms) }
        #expect(window.current == PollWindow.short)
    }
}
