import Testing
import TandemProtocol
import TandemServer
@testable import TandemClient

@Suite struct SyncSessionFlowTests {
    @Test func aBacklogIsPacedUnderTheServersRateLimit() async throws {
        // 50 messages/s with a burst of 5: sent unpaced, 30 patches would trip 4029 at once.
        let harness = try SessionTestServer.start {
            $0.rateLimit = 50
            $0.rateBurst = 5
        }
        let (alice, _) = harness.session(user: "alice", client: "a1")
        let events = StreamLog(alice.events)
        await alice.start()
        #expect(await alice.waitUntilConnected(timeout: .seconds(10)))
        for index in 0..<30 { try await alice.apply([Fixtures.set("/p\(index)", .number(Double(index)))]) }
        #expect(await alice.drain(timeout: .seconds(20)))
        #expect(await alice.snapshot.rev == 30)
        // Never closed for flooding (a reconnect for another reason on a starved machine is allowed).
        #expect(!events.all.contains { if case .serverError(.rateLimited, _) = $0 { true } else { false } }, "closed for flooding")
        await alice.stop()
        await harness.shutdown()
    }

    @Test func heartbeatRoundTripsAreMeasured() async throws {
        // Short enough for a quick test, long enough that a starved test run (the silence limit is
        // twice the interval, and frames wait for a cooperative thread before they count) does not
        // declare every connection dead before its first pong.
        let harness = try SessionTestServer.start { $0.heartbeatInterval = .seconds(2) }
        let (alice, _) = harness.session(user: "alice", client: "a1")
        let events = StreamLog(alice.events)
        await alice.start()
        let measured = await eventually(timeout: .seconds(60)) {
            events.all.contains { if case .roundTrip(let seconds) = $0 { seconds >= 0 && seconds < 5 } else { false } }
        }
        #expect(measured)
        await alice.stop()
        await harness.shutdown()
    }
}
