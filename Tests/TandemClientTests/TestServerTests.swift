import Testing
import TandemClient
import TandemTesting

/// The in-process server of TandemTesting as an app's test would use it, through public API only.
@Suite struct TestServerTests {
    @Test func twoSessionsOfAnAppShareARoomThroughTheTestServer() async throws {
        let server = try TestServer()
        let alice = server.session(user: "alice", client: "a1")
        let bob = server.session(user: "bob", client: "b1", role: .guest)
        await alice.start()
        await bob.start()
        #expect(await alice.waitUntilConnected(timeout: .seconds(30)))
        #expect(await bob.waitUntilConnected(timeout: .seconds(30)))
        try await alice.apply([.set(JSONPointer(tokens: ["tabIndex"]), 2)])
        #expect(await alice.drain(timeout: .seconds(30)))
        let seen = await eventually { await bob.snapshot.state == ["tabIndex": 2] }
        #expect(seen, "bob sees alice's change")
        await alice.stop()
        await bob.stop()
        await server.shutdown()
    }

    @Test func tokensAreForOneRoomAndStoppingTheServerIsSeenBySessions() async throws {
        let server = try TestServer()
        let claims = try server.server.tokens.verify(server.token(user: "carol", room: "checkout", role: .viewer))
        #expect(claims.room == "checkout" && claims.role == .viewer && claims.sub == "carol")
        let carol = server.session(user: "carol", client: "c1", room: "checkout")
        await carol.start()
        #expect(await carol.waitUntilConnected(timeout: .seconds(30)))
        await server.stop()
        await server.stop()
        let lost = await eventually { await carol.state != .connected }
        #expect(lost, "the session notices the server went away")
        await carol.stop()
        await server.shutdown()
    }
}
