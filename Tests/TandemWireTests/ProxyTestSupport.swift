#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization
import Testing
@testable import TandemProxy
@testable import TandemWire

/// A loopback target (echo server by default) and a `FaultProxy` in front of it, on one group.
struct ProxiedEcho {
    let group: EventLoopGroup
    let proxy: FaultProxy
    let target: TCPListener
    let targetSide: HandlerLog<RecordingHandler>

    init(
        faults: FaultProxy.Faults = .none,
        seed: UInt64 = 1,
        maxHeldBytes: Int = 1 << 20,
        connectionConfiguration: TCPConnectionConfiguration = TCPConnectionConfiguration(),
        echo: Bool = true,
        pauseTarget: Bool = false
    ) throws {
        group = try EventLoopGroup(threads: 2)
        // A paused target gets a small fixed receive buffer (no autotuning), so its kernel cannot absorb megabytes.
        let listening = TCPListener.Configuration(receiveBufferSize: pauseTarget ? 16 * 1024 : nil)
        (target, targetSide) = try listenLogging(host: "127.0.0.1", group: group, configuration: listening) { connection in
            if pauseTarget { connection.pauseReading() }
            return RecordingHandler(echo: echo)
        }
        proxy = try FaultProxy.start(
            listenPort: 0, targetHost: "127.0.0.1", targetPort: target.port, faults: faults, group: group,
            random: SplitMix(seed: seed), maxHeldBytes: maxHeldBytes, connectionConfiguration: connectionConfiguration)
    }

    /// A blocking client connected to the proxy.
    func peer(receiveTimeout: Duration = .seconds(5)) throws -> BlockingPeer {
        try BlockingPeer(connectingTo: proxy.localAddress, receiveTimeout: receiveTimeout)
    }

    /// Sends `bytes` through the proxy and reads until they all came back.
    func roundTrip(_ peer: BlockingPeer, _ bytes: [UInt8]) async throws -> [UInt8] {
        try peer.send(bytes)
        var back: [UInt8] = []
        while back.count < bytes.count {
            back += try await peer.receiveOffPool().get()
        }
        return back
    }

    /// Sends `bytes` and reads them back on a dispatch thread, timing the round trip there (not on the shared
    /// cooperative pool, whose threads other tests may keep busy).
    func timedRoundTrip(_ peer: BlockingPeer, _ bytes: [UInt8]) async -> (bytes: [UInt8], elapsed: Duration) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let clock = ContinuousClock()
                let started = clock.now
                var back: [UInt8] = []
                if (try? peer.send(bytes)) != nil {
                    while back.count < bytes.count, case .success(let chunk) = peer.receive(), !chunk.isEmpty {
                        back += chunk
                    }
                }
                continuation.resume(returning: (back, clock.now - started))
            }
        }
    }

    func stop() async {
        await proxy.shutdown()
        group.shutdown()
    }
}

/// Records each chunk a connection receives with its arrival time.
final class TimestampingHandler: TCPConnectionHandler, @unchecked Sendable {
    let chunks = Mutex<[(at: ContinuousClock.Instant, bytes: [UInt8])]>([])

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        let now = ContinuousClock.now
        let copy = [UInt8](bytes)
        chunks.withLock { $0.append((now, copy)) }
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {}

    var byteCount: Int { chunks.withLock { $0.reduce(0) { $0 + $1.bytes.count } } }

    /// The arrival time of every byte received, in order.
    var byteArrivals: [(at: ContinuousClock.Instant, byte: UInt8)] {
        chunks.withLock { chunks in chunks.flatMap { chunk in chunk.bytes.map { (chunk.at, $0) } } }
    }
}

/// A client that writes a payload as fast as the connection stays writable and counts what it handed over.
final class PumpingClient: TCPConnectionHandler, @unchecked Sendable {
    let payload: [UInt8]
    let sent = Atomic<Int>(0)
    let closed = Mutex<(count: Int, error: IOError?)>((0, nil))
    private var offset = 0

    init(payload: [UInt8]) {
        self.payload = payload
    }

    func pump(_ connection: TCPConnection) {
        while connection.isWritable, offset < payload.count {
            let end = min(offset + 64 * 1024, payload.count)
            connection.write(Array(payload[offset..<end]))
            offset = end
        }
        sent.store(offset, ordering: .relaxed)
    }

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {}

    func connectionWritabilityChanged(_ connection: TCPConnection, isWritable: Bool) {
        if isWritable { pump(connection) }
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {
        closed.withLock { $0 = ($0.count + 1, error) }
    }
}

extension BlockingPeer {
    /// One `receive` on a dispatch thread, timed there: how long until data, end of stream or an error.
    func timedReceiveOffPool() async -> (result: Result<[UInt8], IOError>, elapsed: Duration) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let clock = ContinuousClock()
                let started = clock.now
                let result = self.receive()
                continuation.resume(returning: (result, clock.now - started))
            }
        }
    }
}

/// Milliseconds in a duration, as a floating-point number for comparisons with tolerances.
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}
