import Synchronization
import Testing
import TandemTestSupport
@testable import TandemWire

/// Runs a per-connection script when a connection is accepted or receives its end of input.
final class ScriptedHandler: TCPConnectionHandler, @unchecked Sendable {
    let recording = RecordingHandler(closeOnEndOfInput: false)
    let onAccept: @Sendable (TCPConnection) -> Void
    let onEndOfInput: @Sendable (TCPConnection) -> Void
    let onReceive: @Sendable (TCPConnection) -> Void

    init(onAccept: @escaping @Sendable (TCPConnection) -> Void = { _ in },
         onEndOfInput: @escaping @Sendable (TCPConnection) -> Void = { $0.close() },
         onReceive: @escaping @Sendable (TCPConnection) -> Void = { _ in }) {
        self.onAccept = onAccept
        self.onEndOfInput = onEndOfInput
        self.onReceive = onReceive
    }

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        recording.connectionDidReceive(connection, bytes: bytes)
        onReceive(connection)
    }

    func connectionDidReachEndOfInput(_ connection: TCPConnection) {
        recording.connectionDidReachEndOfInput(connection)
        onEndOfInput(connection)
    }

    func connectionIdleTimeoutFired(_ connection: TCPConnection) {
        recording.connectionIdleTimeoutFired(connection)
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {
        recording.connectionDidClose(connection, error: error)
    }
}

@Suite struct TCPCloseTests {
    /// A listener whose connections run `script` on accept; returns the listener and the log of handlers.
    private func serve(
        _ group: EventLoopGroup,
        configuration: TCPListener.Configuration = .init(),
        onAccept: @escaping @Sendable (TCPConnection) -> Void,
        onEndOfInput: @escaping @Sendable (TCPConnection) -> Void = { $0.close() },
        onReceive: @escaping @Sendable (TCPConnection) -> Void = { _ in }
    ) throws -> (TCPListener, HandlerLog<ScriptedHandler>) {
        let (listener, log) = try listenLogging(host: "127.0.0.1", group: group, configuration: configuration) { connection in
            let handler = ScriptedHandler(onAccept: onAccept, onEndOfInput: onEndOfInput, onReceive: onReceive)
            handler.onAccept(connection)
            return handler
        }
        return (listener, log)
    }

    @Test func gracefulCloseDeliversEveryQueuedByteBeforeTheEnd() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let payload = pattern(count: 2 * 1024 * 1024, seed: 9)
        // A close bound far beyond the test, so only the peer's FIN can end it (a starved run can
        // take seconds to read 2 MiB).
        let patient = TCPListener.Configuration(connection: TCPConnectionConfiguration(closeTimeout: .seconds(120)))
        let (listener, log) = try serve(group, configuration: patient) { connection in
            connection.write(payload)
            connection.close()
            connection.write([1, 2, 3])  // ignored after close
        }
        let peer = try BlockingPeer(connectingTo: listener.localAddress)
        let (bytes, end) = await peer.receiveAllOffPool()
        #expect(end == nil)
        #expect(bytes.count == payload.count)
        #expect(firstDifference(bytes, payload) == nil)
        // The server waits for our FIN before releasing its socket.
        try await Task.sleep(for: .milliseconds(20))
        #expect(log.all[0].handler.recording.snapshot.closed == 0)
        peer.shutdownWrite()
        try await eventually("server closed after our FIN") { log.all[0].handler.recording.snapshot.closed == 1 }
        #expect(log.all[0].handler.recording.snapshot.closeError == nil)
    }

    @Test func abortWithResetIsSeenAsAResetByThePeer() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        // The server resets once it has heard from the client, so the client's connect has completed.
        let (listener, log) = try serve(group, onAccept: { _ in }, onReceive: { connection in
            connection.write([9, 9, 9])
            connection.abort(reset: true)
        })
        let client = RecordingHandler()
        _ = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, on: group.next()) { connection in
            connection.write([1])
            return client
        }
        try await eventually("client saw the reset") { client.snapshot.closed == 1 }
        let closeError = try #require(client.snapshot.closeError)
        #expect(closeError.isConnectionReset)
        #expect(client.snapshot.received.isEmpty)  // queued bytes are discarded by abort
        try await eventually("server notified") { log.all.first?.handler.recording.snapshot.closed == 1 }
        #expect(log.all[0].handler.recording.snapshot.closeError == nil)
    }

    @Test func abortWithoutResetEndsTheStreamNormally() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let (listener, _) = try serve(group) { $0.abort() }
        let peer = try BlockingPeer(connectingTo: listener.localAddress)
        let (bytes, end) = await peer.receiveAllOffPool()
        #expect(bytes.isEmpty)
        #expect(end == nil)
    }

    @Test func halfCloseLetsThePeerAnswerAfterOurEndOfStream() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let (listener, log) = try serve(group, onAccept: { _ in }, onEndOfInput: { connection in
            connection.write(Array("answer".utf8))
            connection.close()
        })
        let client = RecordingHandler()
        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, on: group.next()) { connection in
            connection.write(Array("question".utf8))
            connection.shutdownOutput()
            return client
        }
        try await eventually("client closed after the answer") { client.snapshot.closed == 1 }
        #expect(client.snapshot.received == Array("answer".utf8))
        #expect(client.snapshot.closeError == nil)
        let server = log.all[0].handler.recording.snapshot
        #expect(server.received == Array("question".utf8))
        #expect(server.endOfInput == 1)
        #expect(connection.isClosed)
    }

    @Test func closeGivesUpAfterItsBoundWhenThePeerReadsNothing() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let configuration = TCPListener.Configuration(connection: .init(
            highWaterMark: 32 << 20, lowWaterMark: 1 << 20, maxQueuedBytes: 32 << 20, closeTimeout: .milliseconds(200)))
        let (listener, log) = try serve(group, configuration: configuration) { connection in
            connection.write([UInt8](repeating: 7, count: 24 << 20))
            connection.close()
        }
        let peer = try BlockingPeer(connectingTo: listener.localAddress, receiveBuffer: 4096)
        let clock = ContinuousClock()
        let start = clock.now
        try await eventually("close bound hit") { log.all.first?.handler.recording.snapshot.closed == 1 }
        #expect(clock.now - start >= .milliseconds(190))
        #expect(log.all[0].handler.recording.snapshot.closeError == .closeTimeout)
        _ = peer
    }

    @Test func theIdleTimerClosesASilentConnection() async throws {
        let group = try EventLoopGroup(threads: 1, idleSweepInterval: .milliseconds(20))
        defer { group.shutdown() }
        let (listener, log) = try serve(group) { $0.armIdleTimer(.milliseconds(100)) }
        let clock = ContinuousClock()
        let start = clock.now
        let peer = try BlockingPeer(connectingTo: listener.localAddress)
        let (_, end) = await peer.receiveAllOffPool()
        #expect(end == nil)
        #expect(clock.now - start >= .milliseconds(100))
        // Only a sanity bound: with the whole suite running on two cores this thread can be
        // starved for seconds; the point is that the timer fires, and not before its deadline.
        #expect(clock.now - start < .seconds(60))
        // The graceful close waits for our FIN before releasing the socket.
        peer.shutdownWrite()
        try await eventually("closed") { log.all.first?.handler.recording.snapshot.closed == 1 }
        #expect(log.all[0].handler.recording.snapshot.idleFired == 1)
    }

    @Test func rearmingOnEveryMessagePushesTheDeadlineAndSilenceFiresIt() async throws {
        let group = try EventLoopGroup(threads: 1, idleSweepInterval: .milliseconds(10))
        defer { group.shutdown() }
        let (listener, log) = try listenLogging(host: "127.0.0.1", group: group) { connection in
            // Long enough that a loaded machine never lets it lapse between the test's messages.
            let handler = RearmingHandler(timeout: .seconds(30))
            connection.armIdleTimer(.seconds(30))
            return handler
        }
        let peer = try BlockingPeer(connectingTo: listener.localAddress)
        try await eventually("accepted") { log.count == 1 }
        let (connection, handler) = log.all[0]
        var deadlines: [UInt64] = [try await connection.loop.submit { connection.idleDeadline }]
        for message in 1...3 {
            try await Task.sleep(for: .milliseconds(5))
            try peer.send([1])
            try await eventually("message \(message) received") { handler.received.load(ordering: .relaxed) == message }
            deadlines.append(try await connection.loop.submit { connection.idleDeadline })
        }
        // Each message moved the deadline later (re-arming is what keeps a talkative connection alive).
        #expect(zip(deadlines, deadlines.dropFirst()).allSatisfy { $0 < $1 })
        #expect(handler.fired.load(ordering: .relaxed) == 0)
        // Silence past a short deadline fires the timer exactly once; it stays quiet until re-armed.
        try await connection.loop.submit { connection.armIdleTimer(.milliseconds(50)) }
        try await eventually("fires once the peer is quiet") { handler.fired.load(ordering: .relaxed) >= 1 }
        try await Task.sleep(for: .milliseconds(100))
        #expect(handler.fired.load(ordering: .relaxed) == 1)
        // A disarmed timer does not fire.
        try await connection.loop.submit {
            connection.armIdleTimer(.milliseconds(30))
            connection.disarmIdleTimer()
        }
        try await Task.sleep(for: .milliseconds(80))
        #expect(handler.fired.load(ordering: .relaxed) == 1)
    }
}

/// Re-arms the idle timer on every received message, as the WebSocket layer will per frame.
final class RearmingHandler: TCPConnectionHandler, @unchecked Sendable {
    let timeout: Duration
    let fired = Atomic<Int>(0)
    let received = Atomic<Int>(0)

    init(timeout: Duration) { self.timeout = timeout }

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        connection.armIdleTimer(timeout)
        received.add(bytes.count, ordering: .relaxed)
    }

    func connectionIdleTimeoutFired(_ connection: TCPConnection) {
        fired.add(1, ordering: .relaxed)
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {}
}
