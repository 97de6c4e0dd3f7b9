import Testing
import TandemProtocol
import TandemServer
@testable import TandemClient

@Suite struct SyncSessionReconnectTests {
    @Test func beingReplacedByTheSameClientIDStopsRetrying() async throws {
        let harness = try SessionTestServer.start()
        let (first, firstTokens) = harness.session(user: "alice", client: "a1")
        let states = StreamLog(first.states)
        await first.start()
        #expect(await eventually { await first.state == .connected })
        let (second, _) = harness.session(user: "alice", client: "a1")
        await second.start()
        #expect(await eventually { await first.state == .closed(.refused(.replaced)) })
        #expect(await eventually { states.isFinished })
        #expect(firstTokens.value == 1, "no retry after 4009")
        #expect(await second.waitUntilConnected(timeout: .seconds(10)))
        await first.stop()
        await second.stop()
        await harness.shutdown()
    }

    @Test("another user's session with the same client id is another participant: both stay connected and each one's changes are its own")
    func anotherUsersSessionWithTheSameClientIDIsAnotherParticipant() async throws {
        let harness = try SessionTestServer.start()
        let (owner, _) = harness.session(user: "alice", client: "shared")
        await owner.start()
        #expect(await eventually { await owner.state == .connected })
        let (other, tokens) = harness.session(user: "mallory", client: "shared")
        await other.start()
        #expect(await eventually { await other.state == .connected })
        #expect(await owner.identity == SessionIdentity(user: "alice", client: "shared", role: .host))
        #expect(await other.identity == SessionIdentity(user: "mallory", client: "shared", role: .host))
        try await owner.apply([.set(JSONPointer(tokens: ["a"]), 1)])
        try await other.apply([.set(JSONPointer(tokens: ["m"]), 1)])
        for session in [owner, other] {
            #expect(await eventually {
                let snapshot = await session.snapshot
                return snapshot.state == ["a": 1, "m": 1] && snapshot.pending == 0
            })
        }
        #expect(tokens.value == 1, "connected once, never refused")
        #expect(await owner.state == .connected)
        await other.stop()
        await owner.stop()
        await harness.shutdown()
    }

    @Test func aDeletedRoomStopsTheSessionWithoutRetrying() async throws {
        let harness = try SessionTestServer.start()
        let (session, tokens) = harness.session(user: "alice", client: "a1")
        await session.start()
        #expect(await eventually { await session.state == .connected })
        let rooms = RoomsClient(baseURL: "http://127.0.0.1:\(harness.server.port)", token: harness.token(user: "alice"))
        try await rooms.delete("lobby")
        #expect(await eventually { await session.state == .closed(.refused(.roomDeleted)) })
        #expect(tokens.value == 1, "no retry after 4004")
        await session.stop()
        await harness.shutdown()
    }

    @Test func aRefusedTokenIsRetriedOnceWithAFreshOneThenGivenUp() async throws {
        let harness = try SessionTestServer.start()
        let (session, tokens) = harness.session(user: "alice", client: "a1", token: { "not-a-token" })
        await session.start()
        #expect(await eventually { await session.state == .closed(.unauthorized) })
        #expect(tokens.value == 2, "one fresh token after 4001, then stop")
        await session.stop()
        await harness.shutdown()
    }

    @Test func presenceIsAnnouncedInHelloAndUpdatesReachTheOthers() async throws {
        let harness = try SessionTestServer.start()
        let (alice, _) = harness.session(user: "alice", client: "a1", presence: ["name": "Alice"])
        let (bob, _) = harness.session(user: "bob", client: "b1")
        let bobEvents = StreamLog(bob.events)
        await bob.start()
        #expect(await eventually { await bob.state == .connected })
        await alice.start()
        let joined = await eventually {
            bobEvents.all.contains { if case .joined(let p) = $0 { p.client == "a1" && p.data == ["name": "Alice"] } else { false } }
        }
        #expect(joined)
        await alice.updatePresence(["name": "Alice", "cursor": 4])
        let updated = await eventually {
            bobEvents.all.contains { $0 == .presenceChanged(Peer(user: "alice", client: "a1"), data: ["name": "Alice", "cursor": 4]) }
        }
        #expect(updated)
        #expect(await alice.signal(event: "tap", data: ["x": 1]))
        #expect(await eventually {
            bobEvents.all.contains { $0 == .signal(from: Peer(user: "alice", client: "a1"), event: "tap", data: ["x": 1]) }
        })
        await alice.stop()
        await bob.stop()
        await harness.shutdown()
    }

    @Test func drainGivesUpAtItsTimeoutWhenNothingCanBeDelivered() async throws {
        let harness = try SessionTestServer.start()
        let session = await harness.unreachableSession(backoff: Backoff(base: .seconds(0.01), cap: .seconds(0.02)))
        await session.start()
        try await session.apply([Fixtures.set("/x", 1)])
        let start = ContinuousClock.now
        #expect(await session.drain(timeout: .milliseconds(200)) == false)
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(await session.snapshot.pending == 1)
        await session.stop()
        await harness.shutdown()
    }
}
