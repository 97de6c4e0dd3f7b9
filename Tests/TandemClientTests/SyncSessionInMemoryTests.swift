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
