#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import Testing
import TandemTestSupport
@testable import TandemWire

/// Writes from inside its own calls and records whether any callback arrived while one of them was running.
final class ReentrancyProbe: TCPConnectionHandler, @unchecked Sendable {
    struct Record: Sendable {
        var insideOwnCall = false
        var reentered = false
        var writabilityAfterWrite: [Bool] = []
        var notifications: [Bool] = []
        var closeError: IOError?
        var closed = 0
    }

    let record = Mutex(Record())

    private func note(_ change: (inout Record) -> Void) {
        record.withLock { record in
            if record.insideOwnCall { record.reentered = true }
            change(&record)
        }
    }

    /// Writes `chunks` then aborts, noting `isWritable` right after each write.
    func burst(_ connection: TCPConnection, chunks: Int, size: Int) {
        record.withLock { $0.insideOwnCall = true }
        for _ in 0..<chunks {
            connection.write([UInt8](repeating: 1, count: size))
            let writable = connection.isWritable
            record.withLock { $0.writabilityAfterWrite.append(writable) }
        }
        connection.abort()
        record.withLock { $0.insideOwnCall = false }
    }

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {}

    func connectionWritabilityChanged(_ connection: TCPConnection, isWritable: Bool) {
        note { $0.notifications.append(isWritable) }
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {
        note {
            $0.closed += 1
            $0.closeError = error
        }
    }
}

@Suite struct TCPWriteTests {
    @Test func crossingTheHighWaterMarkFlipsIsWritableAtOnceButNotifiesOutsideTheWrite() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let configuration = TCPListener.Configuration(connection: .init(
            highWaterMark: 1_000, lowWaterMark: 100, maxQueuedBytes: 100_000))
        let (listener, log) = try listenLogging(group: group, configuration: configuration) { _ in ReentrancyProbe() }
        let peer = try BlockingPeer(connectingTo: listener.localAddress)
        try await eventually("accepted") { log.count == 1 }
        let (connection, probe) = log.all[0]
        try await connection.loop.submit { probe.burst(connection, chunks: 3, size: 600) }
        try await eventually("closed") { probe.record.withLock { $0.closed } == 1 }
        let record = probe.record.withLock { $0 }
        #expect(record.writabilityAfterWrite == [true, false, false])
        #expect(!record.reentered)
        #expect(record.closeError == nil)
        #expect(connection.handler == nil)  // released after the close notification
        _ = peer
    }

    @Test func writesAfterTheHardLimitAreDroppedAndTheConnectionIsAborted() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let (connection, probe, peer) = try await Self.acceptWithQueueLimit(group: group)
        let queued = try await connection.loop.submit {
            connection.write([UInt8](repeating: 2, count: 1_500))
            connection.write([UInt8](repeating: 3, count: 1_500))  // would exceed 2 000: dropped
            return connection.queuedBytes
        }
        #expect(queued == 1_500)
        try await eventually("aborted") { probe.record.withLock { $0.closed } == 1 }
        #expect(probe.record.withLock { $0.closeError } == .writeQueueOverflow(limit: 2_000))
        #expect(!probe.record.withLock { $0.reentered })
        _ = peer
    }

    @Test func oneWriteLargerThanTheLimitIsAcceptedIntoAnEmptyQueueAndTheLimitAppliesBehindIt() async throws {
        // E.g. a resume's replay bigger than the send-queue limit: refusing it would drop the
        // client again on every reconnect.
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let (connection, probe, peer) = try await Self.acceptWithQueueLimit(group: group)
        let queued = try await connection.loop.submit {
            connection.write([UInt8](repeating: 1, count: 5_000))  // alone in the queue: accepted
            connection.write([UInt8](repeating: 2, count: 1_500))  // 1 500 behind it: within the limit
            let open = !connection.isClosed
            connection.write([UInt8](repeating: 3, count: 600))  // 2 100 behind it: overflow
            return (connection.queuedBytes, open)
        }
        #expect(queued.0 == 6_500)
        #expect(queued.1)
        try await eventually("aborted") { probe.record.withLock { $0.closed } == 1 }
        #expect(probe.record.withLock { $0.closeError } == .writeQueueOverflow(limit: 2_000))
        _ = peer
    }

    @Test func noDelayIsOnByDefaultAndCanBeTurnedOff() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        for noDelay in [true, false] {
            let configuration = TCPListener.Configuration(connection: .init(noDelay: noDelay))
            let (listener, log) = try listenLogging(group: group, configuration: configuration) { _ in RecordingHandler() }
            let peer = try BlockingPeer(connectingTo: listener.localAddress)
            try await eventually("accepted") { log.count == 1 }
            let connection = log.all[0].connection
            let value = try await connection.loop.submit { () -> Int32 in
                var value: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                _ = getsockopt(connection.fd, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length)
                return value
            }
            #expect((value != 0) == noDelay)
            listener.close()
            _ = peer
        }
    }

    /// An accepted connection with a 2,000-byte hard queue limit (high-water 1,000), its probe, and the
    /// blocking peer that keeps it open (and never reads).
    private static func acceptWithQueueLimit(group: EventLoopGroup) async throws -> (TCPConnection, ReentrancyProbe, BlockingPeer) {
        let configuration = TCPListener.Configuration(connection: .init(
            highWaterMark: 1_000, lowWaterMark: 100, maxQueuedBytes: 2_000))
        let (listener, log) = try listenLogging(group: group, configuration: configuration) { _ in ReentrancyProbe() }
        let peer = try BlockingPeer(connectingTo: listener.localAddress)
        try await eventually("accepted") { log.count == 1 }
        let (connection, probe) = log.all[0]
        return (connection, probe, peer)
    }
}
