import Testing
import TandemTesting
import TandemProtocol
@testable import TandemClient

/// The session over `InMemoryTransport`: no socket, the test plays the server message by message. The same
/// session logic runs over every transport, so these pin the policy (handshake, resume, close codes,
/// transport failures) without a network.
@Suite struct SyncSessionInMemoryTests {
    private static let fastRetry = SyncSessionConfiguration(reconnect: ReconnectPolicy(backoff: Backoff(base: .seconds(0.001), cap: .seconds(0.002))))

    @Test func handshakePatchAndAckAndAResumeAfterADrop() async throws {
        let transport = InMemoryTransport()
        let session = inMemorySession(transport, url: "wss://example.test/v1/sync", token: "token-1", configuration: Self.fastRetry)
        var connections = transport.connections.makeAsyncIterator()
        await session.start()
        let first = try await ServedConnection.accept(&connections)
        #expect(first.request.url == "wss://example.test/v1/sync" && first.request.subprotocols == [TandemProtocol.subprotocol])
        let hello = try await first.handshake()
        #expect(hello.token == "token-1" && hello.client == "a1" && hello.resume == nil)
        #expect(await session.waitUntilConnected(timeout: .seconds(10)))

        try await session.apply([Fixtures.set("/tabIndex", 2)])
        #expect(try await first.next() == .patch(seq: 1, ops: [Fixtures.set("/tabIndex", 2)], base: 0))
        first.send(text: ServerMessage.ack(seq: 1, rev: 1, duplicate: false).encoded())
        #expect(await session.drain(timeout: .seconds(10)))

        // A dropped connection: the next hello resumes from the confirmed rev.
        first.drop()
        let second = try await ServedConnection.accept(&connections)
        let resumed = try await second.handshake()
        #expect(resumed.resume == ResumePoint(epoch: "e1", rev: 1))
        await session.stop()
        #expect(second.clientCloseCode == 1000)
    }

    @Test func aRefusalEndsTheSession() async throws {
        let transport = InMemoryTransport()
        let session = inMemorySession(transport, configuration: Self.fastRetry)
        var connections = transport.connections.makeAsyncIterator()
        await session.start()
        let first = try await ServedConnection.accept(&connections)
        first.close(code: 4003)
        #expect(await eventually { await session.state == .closed(.refused(CloseCode(rawValue: 4003))) })
        #expect(transport.attempts.count == 1)
    }

    @Test func passingFailuresAreRetriedAndPermanentOnesAreNot() async throws {
        let transport = InMemoryTransport()
        transport.failNextAttempts(with: [.timeout, .unreachable("refused"), .handshakeFailed("502"), .tls(.protocolFailure(reason: "bad record"))])
        let session = inMemorySession(transport, url: "wss://example.test/v1/sync", configuration: Self.fastRetry)
        var connections = transport.connections.makeAsyncIterator()
        await session.start()
        let connected = try await ServedConnection.accept(&connections)
        #expect(transport.attempts.count == 5, "four failures retried, the fifth attempt connects")
        _ = try await connected.handshake()
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
    private static let slowRetry = SyncSessionConfiguration(reconnect: ReconnectPolicy(backoff: Backoff(base: .seconds(600), cap: .seconds(600))))

    /// Accepts the next connection and answers its hello with a welcome.
    private func accept(_ connections: inout AsyncStream<InMemoryServerEnd>.Iterator) async throws -> (ServedConnection, Hello) {
        let connection = try await ServedConnection.accept(&connections)
        let hello = try await connection.handshake()
        return (connection, hello)
    }

    @Test func suspendClosesCleanlyKeepsTheOutboxAndResumeSendsIt() async throws {
        let transport = InMemoryTransport()
        let session = inMemorySession(transport, configuration: Self.slowRetry)
        var connections = transport.connections.makeAsyncIterator()
        await session.start()
        let (first, _) = try await accept(&connections)
        #expect(await session.waitUntilConnected(timeout: .seconds(10)))

        await session.suspend()
        #expect(await eventually { await session.state == .suspended })
        #expect(first.clientCloseCode == 1000, "the others see a leave at once")
        try await session.apply([Fixtures.set("/tabIndex", 3)])
        #expect(await session.pendingCount == 1)
        #expect(transport.attempts.count == 1, "no reconnect while suspended")

        await session.resume()
        let (second, hello) = try await accept(&connections)
        #expect(hello.client == "a1" && hello.resume == ResumePoint(epoch: "e1", rev: 0))
        #expect(try await second.next() == .patch(seq: 1, ops: [Fixtures.set("/tabIndex", 3)], base: 0))
        second.send(text: ServerMessage.ack(seq: 1, rev: 1, duplicate: false).encoded())
        #expect(await session.drain(timeout: .seconds(10)))
        await session.stop()
    }

    @Test func suspendDuringTheBackoffWaitsAndResumeConnectsAtOnce() async throws {
        let transport = InMemoryTransport()
        transport.failNextAttempts(with: [.timeout])
        let session = inMemorySession(transport, configuration: Self.slowRetry)
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
        let session = inMemorySession(transport, configuration: Self.slowRetry)
        var connections = transport.connections.makeAsyncIterator()
        await session.start()
        #expect(await eventually { if case .reconnecting = await session.state { true } else { false } })
        await session.reconnectNow()
        let (first, _) = try await accept(&connections)
        #expect(await session.waitUntilConnected(timeout: .seconds(10)))

        // A path change while connected: the old connection is dropped and a new one opens at once.
        await session.reconnectNow()
        let (_, hello) = try await accept(&connections)
        #expect(first.clientCloseCode == nil, "dropped, not closed: the old path may be gone")
        #expect(hello.resume == ResumePoint(epoch: "e1", rev: 0))
        #expect(await session.waitUntilConnected(timeout: .seconds(10)))
        #expect(transport.attempts.count == 3)
        await session.stop()
    }

    @Test func stopWhileSuspendedEndsTheSession() async throws {
        let transport = InMemoryTransport()
        let session = inMemorySession(transport, configuration: Self.slowRetry)
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
