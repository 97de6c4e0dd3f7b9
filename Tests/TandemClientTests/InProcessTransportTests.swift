import Testing
import TandemClient
import TandemTesting

/// TandemTesting's in-process transport, through public API only: a session on it is a full participant of
/// the test server's rooms, and the test cuts its network at will.
@Suite struct InProcessTransportTests {
    @Test func aSessionWithoutASocketSharesARoomWithOneOnASocket() async throws {
        let server = try TestServer()
        let transport = InProcessTransport(server: server)
        let alice = server.session(user: "alice", client: "a1", transport: transport)
        let bob = server.session(user: "bob", client: "b1", role: .guest)
        let bobSaw = StreamLog(bob.events)
        await alice.start()
        await bob.start()
        #expect(await alice.waitUntilConnected(timeout: .seconds(30)))
        #expect(await bob.waitUntilConnected(timeout: .seconds(30)))
        #expect(transport.openConnections == 1)
        try await alice.apply([.set(JSONPointer(tokens: ["tabIndex"]), 2)])
        #expect(await alice.drain(timeout: .seconds(30)))
        #expect(await eventually { await bob.snapshot.state == ["tabIndex": 2] })
        try await bob.apply([.set(JSONPointer(tokens: ["cart"]), 1)])
        #expect(await eventually { await alice.snapshot.state == ["tabIndex": 2, "cart": 1] })

        // A clean close from the client: the server sees it go, the other participant is told at once.
        await alice.stop()
        #expect(transport.openConnections == 0)
        #expect(await eventually { bobSaw.all.contains { if case .left(let peer) = $0 { peer.user == "alice" } else { false } } })
        await bob.stop()
        await server.shutdown()
    }

    @Test func droppedLinksAndAnOutageAreResumedWithNothingLost() async throws {
        let server = try TestServer()
        let transport = InProcessTransport(server: server)
        let alice = server.session(user: "alice", client: "a1", transport: transport)
        await alice.start()
        #expect(await alice.waitUntilConnected(timeout: .seconds(30)))

        // The session reconnects within milliseconds: a second attempt, not a state to catch, is the proof.
        transport.dropConnections()
        #expect(await eventually { transport.attempts == 2 })
        #expect(await alice.waitUntilConnected(timeout: .seconds(30)))
        #expect(await eventually { server.server.metrics.connections.value == 1 }, "the server saw the dropped link end")

        // An outage: attempts fail as an unreachable server's do, a change waits, and goes out once it is back.
        transport.setReachable(false)
        transport.dropConnections()
        try await alice.apply([.set(JSONPointer(tokens: ["offline"]), true)])
        #expect(await eventually { transport.attempts >= 4 })
        #expect(await alice.state != .connected && transport.openConnections == 0)
        transport.setReachable(true)
        #expect(await alice.drain(timeout: .seconds(30)))
        let reader = server.session(user: "carol", client: "c1", role: .viewer, transport: transport)
        await reader.start()
        #expect(await reader.waitUntilConnected(timeout: .seconds(30)))
        #expect(await reader.snapshot.state == ["offline": true])
        await reader.stop()
        await alice.stop()
        await server.shutdown()
    }

    @Test func stoppingTheServerClosesInProcessConnectionsAsItClosesSockets() async throws {
        let server = try TestServer()
        let transport = InProcessTransport(server: server)
        let alice = server.session(user: "alice", client: "a1", transport: transport)
        let log = StreamLog(alice.events)
        await alice.start()
        #expect(await alice.waitUntilConnected(timeout: .seconds(30)))
        await server.stop()
        #expect(await eventually { await alice.state != .connected })
        #expect(transport.openConnections == 0)
        // Going away (1001) is passing: the session keeps trying, and the attempts fail while no server runs.
        #expect(await eventually {
            log.all.contains { if case .attemptFailed(let reason) = $0 { reason.contains("not running") } else { false } }
        })
        await alice.stop()
        await server.shutdown()
    }
}

/// A connection without a socket is decided by the same protocol session as a socket: an expired token
/// and one signed with another secret end the same way over both.
@Suite struct InProcessAuthorizationTests {
    private static func outcome(_ server: TestServer, transport: any SyncTransport, token: String) async -> ConnectionState {
        let session = SyncSession(url: server.syncURL, clientID: "m1", tokenProvider: { token }, configuration: TestServer.fastReconnects,
                                  transport: transport)
        await session.start()
        _ = await eventually(timeout: .seconds(30)) { if case .closed = await session.state { true } else { false } }
        let state = await session.state
        await session.stop()
        return state
    }

    @Test func refusalsAreTheSameWithAndWithoutASocket() async throws {
        let server = try TestServer()
        let elsewhere = try TestServer(secret: "another-secret")
        let expired = server.token(user: "mallory", room: "lobby", lifetime: -60)
        let forged = elsewhere.token(user: "mallory", room: "lobby")
        for token in [expired, forged] {
            let overSocket = await Self.outcome(server, transport: WireTransport(group: server.group), token: token)
            let inProcess = await Self.outcome(server, transport: InProcessTransport(server: server), token: token)
            #expect(overSocket == .closed(.unauthorized))
            #expect(inProcess == overSocket)
        }
        await elsewhere.shutdown()
        await server.shutdown()
    }
}
