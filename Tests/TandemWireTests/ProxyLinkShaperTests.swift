import Testing
@testable import TandemProxy
@testable import TandemWire

@Suite struct ProxyLinkShaperTests {
    private let ms: UInt64 = 1_000_000

    @Test func withoutACapAChunkLeavesAfterLatencyPlusItsJitter() {
        var shaper = LinkShaper()
        let at = shaper.deliveryTime(bytes: 100, arrival: 1_000 * ms, latency: 50 * ms, jitter: 7 * ms, bytesPerSecond: 0)
        #expect(at == 1_057 * ms)
    }

    @Test func aChunkDueDuringAStallComesOutWhenItEndsAndTheOrderHolds() {
        var shaper = LinkShaper()
        let stall = LinkShaper.Stall(period: 3_000 * ms, length: 400 * ms)
        let before = shaper.deliveryTime(bytes: 10, arrival: 2_980 * ms, latency: 50 * ms, jitter: 0, bytesPerSecond: 0, stall: stall)
        let during = shaper.deliveryTime(bytes: 10, arrival: 3_100 * ms, latency: 50 * ms, jitter: 0, bytesPerSecond: 0, stall: stall)
        let later = shaper.deliveryTime(bytes: 10, arrival: 3_200 * ms, latency: 10 * ms, jitter: 0, bytesPerSecond: 0, stall: stall)
        let after = shaper.deliveryTime(bytes: 10, arrival: 3_500 * ms, latency: 50 * ms, jitter: 0, bytesPerSecond: 0, stall: stall)
        #expect(before == 3_400 * ms, "due at 3.03 s, in the stall from 3 s: out at its end")
        #expect(during == 3_400 * ms && later == 3_400 * ms, "held until the stall ends, in order")
        #expect(after == 3_550 * ms, "after the stall: its own delay only")
        #expect(LinkShaper.Stall(period: 3_000 * ms, length: 400 * ms).release(6_399 * ms) == 6_400 * ms, "every period")
    }

    @Test func aSmallJitterDrawNeverOvertakesAnEarlierLargeOne() {
        var shaper = LinkShaper()
        let first = shaper.deliveryTime(bytes: 10, arrival: 0, latency: 10 * ms, jitter: 40 * ms, bytesPerSecond: 0)
        let second = shaper.deliveryTime(bytes: 10, arrival: 5 * ms, latency: 10 * ms, jitter: 0, bytesPerSecond: 0)
        let third = shaper.deliveryTime(bytes: 10, arrival: 60 * ms, latency: 10 * ms, jitter: 0, bytesPerSecond: 0)
        #expect(first == 50 * ms)
        #expect(second == 50 * ms)  // held behind the first instead of leaving at 15 ms
        #expect(third == 70 * ms)   // no longer behind anything: its own delay only
    }

    @Test func aCapPacesBackToBackChunksAtTheConfiguredRate() {
        var shaper = LinkShaper()
        // Ten 1000-byte chunks all arriving at once on a 10 000 B/s link: one every 100 ms.
        let times = (0..<10).map { _ in
            shaper.deliveryTime(bytes: 1000, arrival: 0, latency: 0, jitter: 0, bytesPerSecond: 10_000)
        }
        #expect(times == (1...10).map { UInt64($0) * 100 * ms })
    }

    @Test func latencyAddsToThePacedTimeAndAnIdleLinkEarnsNoCredit() {
        var shaper = LinkShaper()
        let first = shaper.deliveryTime(bytes: 1000, arrival: 0, latency: 20 * ms, jitter: 0, bytesPerSecond: 10_000)
        #expect(first == 120 * ms)
        // Arriving long after the link went idle: it still needs its full 100 ms on the wire.
        let later = shaper.deliveryTime(bytes: 1000, arrival: 5_000 * ms, latency: 20 * ms, jitter: 0, bytesPerSecond: 10_000)
        #expect(later == 5_120 * ms)
    }

    @Test func hugeChunksDoNotOverflowThePacingArithmetic() {
        var shaper = LinkShaper()
        let at = shaper.deliveryTime(bytes: Int.max / 2, arrival: 0, latency: 0, jitter: 0, bytesPerSecond: 1)
        #expect(at > 0)
    }

    @Test func slicesAreAboutTenMillisecondsOfTrafficAndAtLeastOneKibibyte() {
        #expect(LinkShaper.sliceSize(bytesPerSecond: 0, chunk: 65_536) == 65_536)
        #expect(LinkShaper.sliceSize(bytesPerSecond: 500_000, chunk: 65_536) == 5_000)
        #expect(LinkShaper.sliceSize(bytesPerSecond: 10_000, chunk: 65_536) == 1024)
    }

    @Test func faultsDescribeWhatTheyInject() {
        #expect(FaultProxy.Faults.none.description == "no faults")
        let faults = FaultProxy.Faults(
            latency: .milliseconds(50), jitter: .milliseconds(10), bandwidthKilobytesPerSecond: 100,
            dropEvery: .seconds(5), blackholeEvery: .milliseconds(1500))
        #expect(faults.description == "latency 50 ms, jitter 10 ms, bandwidth 100 KB/s, drop every 5 s, blackhole every 1.5 s")
        #expect(faults.bandwidthBytesPerSecond == 100_000)
        #expect(!faults.isTransparent)
    }

    @Test func negativeDelaysAndNonPositivePeriodsInjectNothing() {
        let faults = FaultProxy.Faults(
            latency: .milliseconds(-5), jitter: .milliseconds(-1), bandwidthKilobytesPerSecond: -3,
            dropEvery: .zero, blackholeEvery: .seconds(-1))
        #expect(faults.isTransparent)
        #expect(faults.dropPeriod == nil)
        #expect(faults.blackholePeriod == nil)
        #expect(faults.description == "no faults")
    }
}
