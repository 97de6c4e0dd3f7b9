#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import TandemBench
import TandemWire

@Suite struct IOMemoryProbeTests {
    /// Runs the idle-connection memory probe. By default it checks the probe works with a few hundred
    /// connections; other tests running in parallel allocate megabytes, so the per-connection figure is only
    /// meaningful (and only held to the 10 kB budget) in measurement mode, run alone:
    /// `TANDEM_IO_PROBE_CONNECTIONS=5000 swift test --skip-build --filter IOMemoryProbeTests`.
    @Test func idleConnectionsStayFarBelowTenKilobytes() async throws {
        let requested = getenv("TANDEM_IO_PROBE_CONNECTIONS").flatMap { Int(String(cString: $0)) }
        let count = requested ?? 300
        try FileDescriptorLimit.raiseSoftLimitToHard()
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown() }
        let probe = try #require(try await IdleConnectionProbe.measure(count: count, group: group))
        print("IdleConnectionProbe:", probe)
        #expect(probe.connections == count)
        #expect(probe.residentBefore > 0 && probe.residentAfter > 0)
        #expect(probe.bytesPerPair / 2 == probe.bytesPerConnection)
        if requested != nil {
            #expect(probe.bytesPerConnection < 10_000)
        }
    }
}
