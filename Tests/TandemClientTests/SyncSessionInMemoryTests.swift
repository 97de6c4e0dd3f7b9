import Testing
import TandemClientTesting
import TandemProtocol
@testable import TandemClient

/// The session over `InMemoryTransport`: no socket, the test plays the server message by message. The same
/// session logic runs over every transport, so these pin the policy (handshake, resume, close codes,
/// transport failures) without a network.
@Suite struct SyncSessionInMemoryTests {
    private static let fastRetry = SyncSessionConfiguration(reconnect: ReconnectPolicy(backoff: ReconnectBackoff(base: 0.001, cap: 0.002)))

    private static func welcome(rev: Int64 = 0, state: JSONValue = .emptyObject, lastSeq: Int64 = 0) -> [UInt8] {
        ServerMessage.welcome(Welcome(epoch: "e1", rev: rev, sync: .state(state), lastSeq: lastSeq,
                                      you: SessionIdentity(user: "alice", client: "a1", role: .host), participants: [])).encoded()
    }

    /// The next message the client sent on `end`.
    private func next(_ iterator: inout AsyncStream<[UInt8]>.Iterator) async throws -> ClientMessage {
        guard let bytes = await iterator.next() else { throw Closed() }
        return try ClientMessage.decode(bytes)
    }

    private struct Closed: Error {}

    @Test func handshakePatchAndAckAndAResumeAfterADrop() async throws {
        let transport = InMemoryTransport()
        let session = SyncSession(url: "wss://example.test/v1/sync", clientID: "a1", tokenProvider: { "token-1" },
                                  configuration: Self.fastRetry, transport: transport)
        var connections = transport.connections.makeAsyncIterator()
        await session.start()
        let first = try #require(await connections.next())
        #expect(first.request.url == "wss://example.test/v1/sync" && first.request.subprotocols == [TandemProtocol.subprotocol])
        var received = first.received.makeAsyncIterator()
        guard case .hello(let hello) = try await next(&received) else { Issue.record("no hello"); return }
        #expect(hello.token == "token-1" && hello.client == "a1" && hello.resume == nil)
        first.send(text: Self.welcome())
        #expect(await session.waitUntilConnected(timeout: .seconds(10)))

        try await session.apply([Fixtures.set("/tabIndex", 2)])
        guard case .patch(let seq, let ops) = try await next(&received) else { Issue.record("no patch"); return }
        #expect(seq == 1 && ops == [Fixtures.set("/tabIndex", 2)])
        first.send(text: ServerMessage.ack(seq: 1, rev: 1, duplicate: false).encoded())
        #expect(await session.drain(timeout: .seconds(10)))

        // A dropped connection: the next hello resumes from the confirmed rev.
        first.drop()
        let second = try #require(await connections.next())
        var again = second.received.makeAsyncIterator()
        guard case .hello(let resumed) = try await next(&again) else { Issue.record("no second hello"); return }
        #expect(resumed.resume == ResumePoint(epoch: "e1", rev: 1))
        await session.stop()
        #expect(second.clientCloseCode == 1000)
    }

    @Test func aRefusalEndsTheSession() async throws {
        let transport = InMemoryTransport()
        let session = SyncSession(url: "ws://example.test/v1/sync", clientID: "a1", tokenProvider: { "t" },
                                  configuration: Self.fastRetry, transport: transport)
        var connections = transport.connections.makeAsyncIterator()
        await session.start()
        let first = try #require(await connections.next())
        first.close(code: 4003, reason: "forbidden")
        #expect(await eventually { await session.state == .closed(.refused(CloseCode(rawValue: 4003))) })
        #expect(transport.attempts.count == 1)
    }

    @Test func passingFailuresAreRetriedAndPermanentOnesAreNot() async throws {
        let transport = InMemoryTransport()
        transport.failNextAttempts(with: [.timeout, .unreachable("refused"), .handshakeFailed("502"), .tls(.protocolFailure(reason: "bad record"))])
        let session = SyncSession(url: "wss://example.test/v1/sync", clientID: "a1", tokenProvider: { "t" },
                                  configuration: Self.fastRetry, transport: transport)
        var connections = transport.connections.makeAsyncIterator()
        await session.start()
        let connected = try #require(await connections.next())
        #expect(transport.attempts.count == 5, "four failures retried, the fifth attempt connects")
        connected.send(text: Self.welcome())
        #expect(await session.waitUntilConnected(timeout: .seconds(10)))

        transport.failNextAttempts(with: [.tls(.hostnameMismatch(expected: "example.test"))])
        connected.drop()
        #expect(await eventually { await session.state == .closed(.transportFailed(.tls(.hostnameMismatch(expected: "example.test")))) })
        #expect(transport.attempts.count == 6)
    }
}

/// The app lifecycle: background (suspend), foreground (resume), a network path change (reconnectNow).
@Suite struct SyncSessionAppLifecycleTests {
    /// Backoff long enough that only `resume()` or `reconnectNow()` can explain a prompt reconnect.
    private static let slowRetry = SyncSessionConfiguration(reconnect: ReconnectPolicy(backoff: ReconnectBackoff(base: 600, cap: 600)))

    private static func welcome(rev: Int64 = 0) -> [UInt8] {
        ServerMessage.welcome(Welcome(epoch: "e1", rev: rev, sync: .state(.emptyObject), lastSeq: 0,
                                      you: SessionIdentity(user: "alice", client: "a1", role: .host), participants: [])).encoded()
    }

    /// Accepts the next connection: reads its hello, answers with a welcome; returns it and the hello.
    private func accept(_ connections: inout AsyncStream<InMemoryServerEnd>.Iterator, rev: Int64 = 0)
        async throws -> (InMemoryServerEnd, Hello, AsyncStream<[UInt8]>.Iterator) {
        let end = try #require(await connections.next())
        var received = end.received.makeAsyncIterator()
        let bytes = try #require(await received.next())
        guard case .hello(let hello) = try ClientMessage.decode(bytes) else { throw DecodingFailed() }
        end.send(text: Self.welcome(rev: rev))
        return (end, hello, received)
    }

    private struct DecodingFailed: Error {}

    @Test func suspendClosesCleanlyKeepsTheOutboxAndResumeSendsIt() async throws {
        let transport = InMemoryTransport()
        let session = SyncSession(url: "ws://example.test/v1/sync", clientID: "a1", tokenProvider: { "t" },
                                  configuration: Self.slowRetry, transport: transport)
        var connections = transport.connections.makeAsyncIterator()
        await session.start()
        let (first, _, _) = try await accept(&connections)
        #expect(await session.waitUntilConnected(timeout: .seconds(10)))

        await session.suspend()
        #expect(await eventually { await session.state == .suspended })
        #expect(first.clientCloseCode == 1000, "the others see a leave at once")
        try await session.apply([Fixtures.set("/tabIndex", 3)])
        #expect(await session.pendingCount == 1)
        #expect(transport.attempts.count == 1, "no reconnect while suspended")

        await session.resume()
        var (second, hello, received) = try await accept(&connections)
        #expect(hello.client == "a1" && hello.resume == ResumePoint(epoch: "e1", rev: 0))
        let patch = try #require(await received.next())
        #expect(try ClientMessage.decode(patch) == .patch(seq: 1, ops: [Fixtures.set("/tabIndex", 3)]))
        second.send(text: ServerMessage.ack(seq: 1, rev: 1, duplicate: false).encoded())
        #expect(await session.drain(timeout: .seconds(10)))
        await session.stop()
    }

    @Test func suspendDuringTheBackoffWaitsAndResumeConnectsAtOnce() async throws {
        let transport = InMemoryTransport()
        transport.failNextAttempts(with: [.timeout])
        let session = SyncSession(url: "ws://example.test/v1/sync", clientID: "a1", tokenProvider: { "t" },
                                  configuration: Self.slowRetry, transport: transport)
        var connections = transport.connections.makeAsyncIterator()
        await session.start()
        #expect(await eventually { if case .reconnecting = await session.state { true } else { false } })
        await session.suspend()
        #expect(await eventually { await session.state == .suspended })
        await session.resume()
        _ = try await accept(&connections)
        #expect(await session.waitUntilConnected(timeout: .seconds(10)))
        #expect(transport.attempts.count == 2)
        await session.stop()
        #expect(await session.state == .closed(.closedByApp))
    }

    @Test func reconnectNowSkipsTheBackoffAndReplacesALiveConnection() async throws {
        let transport = InMemoryTransport()
        transport.failNextAttempts(with: [.unreachable("no route")])
        let session = SyncSession(url: "ws://example.test/v1/sync", clientID: "a1", tokenProvider: { "t" },
                                  configuration: Self.slowRetry, transport: transport)
        var connections = transport.connections.makeAsyncIterator()
        await session.start()
        #expect(await eventually { if case .reconnecting = await session.state { true } else { false } })
        await session.reconnectNow()
        let (first, _, _) = try await accept(&connections)
        #expect(await session.waitUntilConnected(timeout: .seconds(10)))

        // A path change while connected: the old connection is dropped and a new one opens at once.
        await session.reconnectNow()
        let (_, hello, _) = try await accept(&connections)
        #expect(first.clientCloseCode == nil, "dropped, not closed: the old path may be gone")
        #expect(hello.resume == ResumePoint(epoch: "e1", rev: 0))
        #expect(await session.waitUntilConnected(timeout: .seconds(10)))
        #expect(transport.attempts.count == 3)
        await session.stop()
    }

    @Test func stopWhileSuspendedEndsTheSession() async throws {
        let transport = InMemoryTransport()
        let session = SyncSession(url: "ws://example.test/v1/sync", clientID: "a1", tokenProvider: { "t" },
                                  configuration: Self.slowRetry, transport: transport)
        var connections = transport.connections.makeAsyncIterator()
        let states = StreamLog(session.states)
        await session.start()
        _ = try await accept(&connections)
        await session.suspend()
        #expect(await eventually { await session.state == .suspended })
        await session.stop()
        #expect(await eventually { states.isFinished })
        #expect(states.all.last == .closed(.closedByApp))
        await session.resume()
        #expect(transport.attempts.count == 1)
    }
}
