import Synchronization
import TandemKit
import Testing
import TandemProtocol
import TandemServer
@testable import TandemClient

/// A token provider that fails its first `failures` calls, then hands out `token`.
private final class FlakyTokens: Sendable {
    private let calls = Mutex(0)
    let failures: Int
    let token: String

    init(failures: Int, token: String) {
        self.failures = failures
        self.token = token
    }

    struct Unavailable: Error {}

    func next() throws -> String {
        let call = calls.withLock { $0 += 1; return $0 }
        if call <= failures { throw Unavailable() }
        return token
    }

    var count: Int { calls.withLock { $0 } }
}

@Suite struct SyncSessionLifecycleTests {
    @Test func aFailingTokenProviderIsRetriedWithBackoff() async throws {
        let harness = try SessionTestServer.start()
        let tokens = FlakyTokens(failures: 2, token: harness.token(user: "alice"))
        let session = SyncSession(
            url: harness.server.syncURL, clientID: "a1", tokenProvider: { try tokens.next() },
            configuration: SyncSessionConfiguration(reconnect: ReconnectPolicy(backoff: Backoff(base: .seconds(0.01), cap: .seconds(0.02)))),
            transport: WireTransport(group: harness.group))
        await session.start()
        #expect(await session.waitUntilConnected(timeout: .seconds(10)))
        #expect(tokens.count == 3)
        await session.stop()
        await harness.shutdown()
    }

    @Test func presenceChangedWhileDisconnectedGoesOutWithTheNextHello() async throws {
        let harness = try SessionTestServer.start()
        let (alice, _) = harness.session(user: "alice", client: "a1", presence: ["name": "Alice"])
        let (bob, _) = harness.session(user: "bob", client: "b1")
        let bobEvents = StreamLog(bob.events)
        // Every state alice passes through: with fast reconnects she may be connected again before a poll of
        // `state` would see her lose the link.
        let aliceStates = StreamLog(alice.states)
        await bob.start()
        await alice.start()
        #expect(await alice.waitUntilConnected(timeout: .seconds(10)))
        #expect(await bob.waitUntilConnected(timeout: .seconds(10)))
        #expect(await eventually { aliceStates.all.last == .connected })
        let connectedAt = aliceStates.all.count
        await alice.simulateNetworkLoss()
        #expect(await eventually { aliceStates.all.dropFirst(connectedAt).contains { $0 != .connected } })
        await alice.updatePresence(["name": "Alice", "status": "back"])
        let seen = await eventually {
            bobEvents.all.contains { $0 == .presenceChanged(Peer(user: "alice", client: "a1"), data: ["name": "Alice", "status": "back"]) }
        }
        #expect(seen, "the reconnect's hello carries the latest presence, announced to the others")
        #expect(!bobEvents.all.contains(.left(Peer(user: "alice", client: "a1"))), "a reconnect within the grace period is no leave")
        await alice.stop()
        await bob.stop()
        await harness.shutdown()
    }

    @Test func stopEndsBackoffAndLaterCallsAreRefused() async throws {
        let harness = try SessionTestServer.start()
        let session = await harness.unreachableSession(backoff: Backoff(base: .seconds(30), cap: .seconds(30)))
        let states = StreamLog(session.states)
        await session.start()
        #expect(await eventually { if case .reconnecting = await session.state { true } else { false } })
        let start = ContinuousClock.now
        await session.stop()
        #expect(ContinuousClock.now - start < .seconds(5), "stop does not wait out a 30 s backoff")
        #expect(states.all.last == .closed(.closedByApp))
        #expect(await eventually { states.isFinished })
        await #expect(throws: SyncSessionError.closed) { try await session.apply([Fixtures.set("/x", 1)]) }
        #expect(await session.signal(event: "tap", data: .null) == false)
        await harness.shutdown()
    }
}

/// The session's `established` gate: "only after login" work, as the article asks for the profile.
@Suite struct SyncSessionEstablishedGateTests {
    @Test func workWaitsForTheWelcomeRunsAgainAfterAReconnectAndFailsWhenTheSessionEnds() async throws {
        let harness = try SessionTestServer.start()
        let (alice, _) = harness.session(user: "alice", client: "a1")
        let openings = Mutex<[SessionIdentity]>([])
        await alice.established.onEveryOpen { identity in openings.withLock { $0.append(identity) } }
        // Submitted before the session even starts: it must wait for the welcome.
        let early = Task { try await alice.established.run { identity in identity.user } }
        #expect(await alice.established.isOpen == false)
        await alice.start()
        #expect(try await early.value == "alice")
        #expect(await eventually { openings.withLock { $0.count } == 1 })
        #expect(openings.withLock { $0.first } == SessionIdentity(user: "alice", client: "a1", role: .host))

        await alice.simulateNetworkLoss()
        #expect(await eventually { openings.withLock { $0.count } == 2 }, "the hook runs again after the reconnect")

        await alice.stop()
        #expect(await eventually { await alice.established.isOpen == false })
        await #expect(throws: GateError.finished(gate: "Tandem session a1", reason: "\(SyncSessionError.closed)")) {
            try await alice.established.run { _ in () }
        }
        await harness.shutdown()
    }
}
