#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import TandemWire

@Suite struct IOMemoryProbeTests {
    /// Runs the idle-connection memory probe. `TANDEM_IO_PROBE_CONNECTIONS` raises the count for a real
    /// measurement (e.g. 5000); the default keeps the test quick.
    @Test func idleConnectionsStayFarBelowTenKilobytes() async throws {
        let count = getenv("TANDEM_IO_PROBE_CONNECTIONS").flatMap { Int(String(cString: $0)) } ?? 300
        try FileDescriptorLimit.raiseSoftLimitToHard()
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown() }
        let probe = try #require(try await IdleConnectionProbe.measure(count: count, group: group))
        print("IdleConnectionProbe:", probe)
        #expect(probe.connections == count)
        #expect(probe.residentAfter >= probe.residentBefore - 1 << 20)
        #expect(probe.bytesPerConnection < 10_000)
    }
}
