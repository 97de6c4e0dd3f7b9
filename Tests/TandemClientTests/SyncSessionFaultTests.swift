import Foundation
import Testing
import TandemProtocol
import TandemServer
import TandemProxy
import TandemWire
@testable import TandemClient

/// Sessions against a real server through `FaultProxy`: the failures of real networks, in process.
@Suite struct SyncSessionFaultTests {
    typealias F = Fixtures

    /// A proxy in front of the harness's server, on the harness's loop.
    static func link(to harness: SessionTestServer, faults: FaultProxy.Faults = .none) throws -> FaultProxy {
        try FaultProxy.start(listenPort: 0, targetHost: "127.0.0.1", targetPort: harness.server.port, faults: faults, group: harness.group)
    }

    static func session(_ harness: SessionTestServer, through proxy: FaultProxy, user: String, client: String) -> SyncSession {
        let token = harness.token(user: user)
        return SyncSession(
            url: "ws://127.0.0.1:\(proxy.port)\(TandemProtocol.syncPath)", clientID: client, tokenProvider: { token },
            configuration: SyncSessionConfiguration(reconnect: ReconnectPolicy(backoff: Backoff(base: .seconds(0.01), cap: .seconds(0.05)))),
            transport: WireTransport(group: harness.group))
    }

    @Test func aHalfOpenLinkIsDetectedWithinTwoHeartbeatIntervals() async throws {
        let interval = 400
        let harness = try SessionTestServer.start { $0.heartbeatInterval = .milliseconds(interval) }
        let proxy = try Self.link(to: harness)
        let session = Self.session(harness, through: proxy, user: "alice", client: "a1")
        let states = StreamLog(session.states)
        await session.start()
        #expect(await session.waitUntilConnected(timeout: .seconds(30)))
        // A couple of heartbeats pass, so the connection is known to be alive.
        try await Task.sleep(for: .milliseconds(2 * interval))
        // The link stops forwarding without closing anything: only the heartbeat can notice.
        let cut = ContinuousClock.now
        proxy.blackholeAll()
        #expect(await eventually { states.all.contains { if case .reconnecting = $0 { true } else { false } } })
        let detected = ContinuousClock.now - cut
        // Dead after 2 intervals without a frame; the last frame came at most one interval before the cut.
        // The margin covers timer and scheduling delays on a loaded machine.
        #expect(detected <= .milliseconds(2 * interval + 1_000), "declared dead after \(detected)")
        #expect(await session.waitUntilConnected(timeout: .seconds(30)), "a fresh connection through the link works")
        try await session.apply([F.set("/after", true)])
        #expect(await session.drain(timeout: .seconds(30)))
        await session.stop()
        await proxy.shutdown()
        await harness.shutdown()
    }

    @Test func aSessionResumesAfterTheServerRestartsOnTheSameDataFolder() async throws {
        let harness = try SessionTestServer.start()
        let port = harness.server.port
        let session = harness.session(user: "alice", client: "a1").0
        let events = StreamLog(session.events)
        await session.start()
        for index in 1...3 { try await session.apply([F.set("/before\(index)", .number(Double(index)))]) }
        #expect(await session.drain(timeout: .seconds(30)))
        await harness.stopServer()
        // Changes made while the server is down wait in the outbox.
        for index in 1...3 { try await session.apply([F.set("/during\(index)", .number(Double(index)))]) }
        #expect(await session.pendingCount == 3)

        var configuration = harness.server.configuration
        configuration.port = port
        let restarted = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "test"], logger: .discarding)
        #expect(await session.drain(timeout: .seconds(30)), "the outbox is delivered to the restarted server")
        let snapshot = await session.snapshot
        #expect(snapshot.rev == 6)
        for index in 1...3 {
            #expect(snapshot.state["before\(index)"] == .number(Double(index)))
            #expect(snapshot.state["during\(index)"] == .number(Double(index)))
        }
        let synchronized = events.all.compactMap { event -> Bool? in
            if case .synchronized(_, _, let fullState, _) = event { fullState } else { nil }
        }
        #expect(synchronized == [true, false], "the first welcome sends the state; the one after the restart resumes with a replay")
        await session.stop()
        await restarted.shutdown()
        await harness.shutdown()
    }

    @Test func aScrollBurstOverASlowLinkEndsWithTheNewestOffsetNotABacklog() async throws {
        let harness = try SessionTestServer.start()
        // 60 ms each way: a patch's round trip is far longer than the 2 ms between scroll events.
        let proxy = try Self.link(to: harness, faults: FaultProxy.Faults(latency: .milliseconds(60)))
        let session = Self.session(harness, through: proxy, user: "alice", client: "a1")
        await session.start()
        #expect(await session.waitUntilConnected(timeout: .seconds(30)))
        var mostPending = 0
        let burstStart = ContinuousClock.now
        for y in 1...200 {
            try await session.apply([.set(JSONPointer(tokens: ["contentOffset"]), ["x": 0, "y": .number(Double(y))])])
            mostPending = max(mostPending, await session.pendingCount)
            try await Task.sleep(for: .milliseconds(2))
        }
        let burst = ContinuousClock.now - burstStart
        let inFlight = SyncEngineConfiguration().maxInFlight
        #expect(mostPending <= inFlight + 1, "at most one unsent value besides those in flight, saw \(mostPending)")
        #expect(await session.drain(timeout: .seconds(30)))
        let snapshot = await session.snapshot
        #expect(snapshot.state["contentOffset"]?["y"] == .number(200), "the newest offset wins")
        // Flow control, not one patch per event: at most `maxInFlight` per round trip (≥ 120 ms here) while the
        // burst lasted (≈ 0.4 s: ≈ 35 patches; a busy machine stretches the 2 ms sleeps), plus the last ones.
        let roundTrips = Double(burst.components.seconds) / 0.12 + Double(burst.components.attoseconds) / 1.2e17
        #expect(Double(snapshot.rev) <= Double(inFlight) * (roundTrips + 2),
                "\(snapshot.rev) patches reached the server for 200 scroll events in \(burst)")
        await session.stop()
        await proxy.shutdown()
        await harness.shutdown()
    }
}
