import Synchronization
import Testing
import TandemTestSupport
@testable import TandemWire

@Suite struct TCPBackpressureTests {
    private let limits = TCPConnectionConfiguration(
        highWaterMark: 256 * 1024, lowWaterMark: 64 * 1024, maxQueuedBytes: 1024 * 1024)

    @Test func aPeerThatDoesNotReadTriggersTheHighWaterMarkAndTheQueueStaysBounded() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let serverSide = HandlerLog<RecordingHandler>()
        let listener = try TCPListener.bind(
            host: "127.0.0.1", port: 0, group: group, configuration: .init(connection: limits)
        ) { connection in
            let handler = RecordingHandler()
            serverSide.add(connection, handler)
            return handler
        }
        let peer = try BlockingPeer(connectingTo: listener.localAddress, receiveBuffer: 4096)
        try await eventually("accepted") { serverSide.count == 1 }
        let (connection, handler) = serverSide.all[0]
        let chunk = SharedBytes(pattern(count: 64 * 1024))
        // Write far more than the kernel buffers plus the hard limit, a chunk per loop iteration.
        let maxSeen = Mutex(0)
        for _ in 0..<2_000 {
            let open = try await group.loops[0].submit {
                connection.write(chunk)
                maxSeen.withLock { $0 = max($0, connection.queuedBytes) }
                return !connection.isClosed
            }
            if !open { break }
        }
        try await eventually("overflow closed the connection") { handler.snapshot.closed == 1 }
        let record = handler.snapshot
        #expect(record.writability.first == false)
        #expect(record.closeError == .writeQueueOverflow(limit: limits.maxQueuedBytes))
        #expect(maxSeen.withLock { $0 } <= limits.maxQueuedBytes)
        #expect(listener.connectionCount == 0)
        _ = peer
    }

    @Test func aLargeTransferRespectingWritabilityArrivesCompleteAndStaysUnderTheHighWaterMark() async throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown() }
        let payload = pattern(count: 2 * 1024 * 1024, seed: 3)
        let producerLog = HandlerLog<Producer>()
        let listener = try TCPListener.bind(
            host: "127.0.0.1", port: 0, group: group, configuration: .init(connection: limits)
        ) { connection in
            let producer = Producer(payload: payload, chunk: 64 * 1024)
            producerLog.add(connection, producer)
            producer.pump(connection)
            return producer
        }
        let reader = RecordingHandler()
        let client = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, on: group.loops[1]) { _ in reader }
        try await eventually("all bytes received", timeout: .seconds(10)) { reader.receivedCount >= payload.count }
        #expect(firstDifference(reader.snapshot.received, payload) == nil)
        let producer = try #require(producerLog.all.first?.handler)
        #expect(producer.maxQueued.withLock { $0 } <= limits.highWaterMark + 64 * 1024)
        #expect(producer.pauses.withLock { $0 } > 0)
        // The producer closed after the last chunk: the client sees the end of input and closes too.
        try await eventually("both sides closed") { reader.snapshot.closed == 1 }
        #expect(reader.snapshot.closeError == nil)
        _ = client
    }

    @Test func pausingInsideACallbackStopsTheCurrentBurst() async throws {
        // A tiny read buffer makes one burst span many reads; the pause must take effect after the first.
        let group = try EventLoopGroup(threads: 1, readBufferSize: 1024)
        defer { group.shutdown() }
        let (listener, log) = try listenLogging(host: "127.0.0.1", group: group) { _ in PauseOnFirstChunk() }
        let peer = try BlockingPeer(connectingTo: listener.localAddress)
        try await eventually("accepted") { log.count == 1 }
        let payload = pattern(count: 20_000, seed: 5)
        try peer.send(payload)
        let (connection, handler) = log.all[0]
        try await eventually("first chunk") { !handler.received.withLock { $0.isEmpty } }
        try await Task.sleep(for: .milliseconds(30))
        #expect(handler.received.withLock { $0.count } <= 1024)
        try await connection.loop.submit { connection.resumeReading() }
        try await eventually("rest delivered") { handler.received.withLock { $0.count } == payload.count }
        #expect(firstDifference(handler.received.withLock { $0 }, payload) == nil)
    }

    @Test func pausedReadingStopsDeliveryUntilResumed() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let (listener, serverSide) = try listenLogging(host: "127.0.0.1", group: group) { connection in
            let handler = RecordingHandler()
            connection.pauseReading()
            return handler
        }
        let peer = try BlockingPeer(connectingTo: listener.localAddress)
        try await eventually("accepted") { serverSide.count == 1 }
        try peer.send([1, 2, 3])
        try await Task.sleep(for: .milliseconds(30))
        let (connection, handler) = serverSide.all[0]
        #expect(handler.snapshot.received.isEmpty)
        try await group.loops[0].submit { connection.resumeReading() }
        try await eventually("delivered after resume") { handler.snapshot.received == [1, 2, 3] }
    }
}

/// Pauses reading after the first chunk it receives.
final class PauseOnFirstChunk: TCPConnectionHandler, @unchecked Sendable {
    let received = Mutex<[UInt8]>([])

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        let copy = [UInt8](bytes)
        let isFirst = received.withLock { received in
            defer { received.append(contentsOf: copy) }
            return received.isEmpty
        }
        if isFirst { connection.pauseReading() }
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {}
}

/// Writes a payload in chunks, only while the connection is writable, then closes.
final class Producer: TCPConnectionHandler, @unchecked Sendable {
    let payload: [UInt8]
    let chunk: Int
    private var offset = 0
    let maxQueued = Mutex(0)
    let pauses = Mutex(0)

    init(payload: [UInt8], chunk: Int) {
        self.payload = payload
        self.chunk = chunk
    }

    func pump(_ connection: TCPConnection) {
        while connection.isWritable, offset < payload.count {
            let end = min(offset + chunk, payload.count)
            connection.write(Array(payload[offset..<end]))
            offset = end
        }
        let queued = connection.queuedBytes
        maxQueued.withLock { $0 = max($0, queued) }
        if offset == payload.count { connection.close() }
    }

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {}

    func connectionWritabilityChanged(_ connection: TCPConnection, isWritable: Bool) {
        if isWritable {
            pump(connection)
        } else {
            pauses.withLock { $0 += 1 }
        }
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {}
}
