#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization
import Testing
@testable import TandemWire

/// What a `RecordingHandler` has seen, in order.
struct Recording: Sendable {
    var received: [UInt8] = []
    var writability: [Bool] = []
    var endOfInput = 0
    var idleFired = 0
    var closed = 0
    var closeError: IOError?
}

/// A handler that records every event; optionally echoes what it receives, and can be told to react to the
/// end of input or the idle timer differently from the defaults.
final class RecordingHandler: TCPConnectionHandler, @unchecked Sendable {
    let state = Mutex(Recording())
    let echo: Bool
    let closeOnEndOfInput: Bool
    let closeOnIdle: Bool

    init(echo: Bool = false, closeOnEndOfInput: Bool = true, closeOnIdle: Bool = true) {
        self.echo = echo
        self.closeOnEndOfInput = closeOnEndOfInput
        self.closeOnIdle = closeOnIdle
    }

    var snapshot: Recording { state.withLock { $0 } }

    /// The number of bytes received so far, without copying them (cheap enough to poll).
    var receivedCount: Int { state.withLock { $0.received.count } }

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        let copy = [UInt8](bytes)
        state.withLock { $0.received.append(contentsOf: copy) }
        if echo { connection.write(copy) }
    }

    func connectionWritabilityChanged(_ connection: TCPConnection, isWritable: Bool) {
        state.withLock { $0.writability.append(isWritable) }
    }

    func connectionDidReachEndOfInput(_ connection: TCPConnection) {
        state.withLock { $0.endOfInput += 1 }
        if closeOnEndOfInput { connection.close() }
    }

    func connectionIdleTimeoutFired(_ connection: TCPConnection) {
        state.withLock { $0.idleFired += 1 }
        if closeOnIdle { connection.close() }
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {
        state.withLock {
            $0.closed += 1
            $0.closeError = error
        }
    }
}

/// Collects the handlers a listener creates, so tests can reach the server side of each connection.
final class HandlerLog<Handler: TCPConnectionHandler>: @unchecked Sendable {
    private struct Entry: @unchecked Sendable {
        let connection: TCPConnection
        let handler: Handler
    }

    private let entries = Mutex<[Entry]>([])

    func add(_ connection: TCPConnection, _ handler: Handler) {
        let entry = Entry(connection: connection, handler: handler)
        entries.withLock { $0.append(entry) }
    }

    var all: [(connection: TCPConnection, handler: Handler)] {
        entries.withLock { $0.map { (connection: $0.connection, handler: $0.handler) } }
    }

    var count: Int { entries.withLock { $0.count } }
}

/// Binds a listener on `host` (ephemeral port) whose handlers, made by `make` on the connection's loop, are
/// logged with their connections.
func listenLogging<Handler: TCPConnectionHandler & SendableMetatype>(
    host: String = "127.0.0.1",
    group: EventLoopGroup,
    configuration: TCPListener.Configuration = .init(),
    _ make: @escaping @Sendable (TCPConnection) -> Handler
) throws -> (TCPListener, HandlerLog<Handler>) {
    let log = HandlerLog<Handler>()
    let listener = try TCPListener.bind(host: host, port: 0, group: group, configuration: configuration) { connection in
        let handler = make(connection)
        log.add(connection, handler)
        return handler
    }
    return (listener, log)
}

/// A plain blocking socket for playing a peer the I/O layer does not control (one that never reads, or reads
/// with a deadline). Test-only.
final class BlockingPeer: @unchecked Sendable {
    let fd: Int32

    /// How long a receive waits before failing with EAGAIN.
    func setReceiveTimeout(_ receiveTimeout: Duration) {
        var timeout = timeval(tv_sec: Int(receiveTimeout.components.seconds), tv_usec: Int(receiveTimeout.components.attoseconds / 1_000_000_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    init(connectingTo address: SocketAddress, receiveTimeout: Duration = .seconds(5), receiveBuffer: Int32? = nil) throws {
        fd = socket(address.family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw IOError.lastError("socket") }
        setReceiveTimeout(receiveTimeout)
        if var size = receiveBuffer {
            // Before connect, so the advertised window is small from the start.
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let status = address.withSockAddr { connect(fd, $0, $1) }
        // On failure deinit closes the descriptor (all properties are set), so it must not be closed here too:
        // a second close would hit whatever descriptor another thread opened under the same number meanwhile.
        guard status == 0 else { throw IOError.lastError("connect") }
    }

    deinit { _ = close(fd) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw IOError.lastError("send") }
            offset += written
        }
    }

    /// Sends FIN (half-close).
    func shutdownWrite() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// One `recv`: the bytes read (empty at end of stream), or the error (e.g. ECONNRESET, EAGAIN on timeout).
    func receive(max: Int = 65536) -> Result<[UInt8], IOError> {
        var buffer = [UInt8](repeating: 0, count: max)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 { return .failure(IOError.lastError("recv")) }
        return .success(Array(buffer[0..<count]))
    }

    /// `receive` on a dispatch thread, so a blocking read never holds one of the few cooperative threads that
    /// the other tests running in parallel need.
    func receiveOffPool(max: Int = 65536) async -> Result<[UInt8], IOError> {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.receive(max: max)) }
        }
    }

    /// `receiveAll` on a dispatch thread (see `receiveOffPool`).
    func receiveAllOffPool() async -> (bytes: [UInt8], end: IOError?) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.receiveAll()) }
        }
    }

    /// Reads until end of stream or an error; returns everything read and how it ended.
    func receiveAll() -> (bytes: [UInt8], end: IOError?) {
        var all: [UInt8] = []
        while true {
            switch receive() {
            case .success(let chunk):
                if chunk.isEmpty { return (all, nil) }
                all.append(contentsOf: chunk)
            case .failure(let error):
                return (all, error)
            }
        }
    }
}

/// Deterministic test payload: byte `i` is `(i * 31 + seed) % 251`.
func pattern(count: Int, seed: Int = 0) -> [UInt8] {
    (0..<count).map { UInt8(($0 &* 31 &+ seed) % 251) }
}

/// Where two byte streams first differ, described for a test failure; nil when they are equal.
///
/// Swift Testing's `#expect(a == b)` on arrays computes a full diff when they differ, which takes minutes for
/// megabyte payloads and looks like a hang; this compares in one pass and names the first difference.
func firstDifference(_ actual: [UInt8], _ expected: [UInt8]) -> String? {
    let common = min(actual.count, expected.count)
    let index = actual.withUnsafeBufferPointer { a in
        expected.withUnsafeBufferPointer { e in
            (0..<common).first { a[$0] != e[$0] }
        }
    }
    if let index {
        let window = index..<min(index + 8, common)
        return "first difference at byte \(index) of \(expected.count): got \(Array(actual[window])), expected \(Array(expected[window]))"
    }
    return actual.count == expected.count ? nil : "got \(actual.count) bytes, expected \(expected.count)"
}
