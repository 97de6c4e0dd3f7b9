#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TandemSynchronization
import TandemWire

/// Measures the user-space memory an idle TCP connection costs: it opens `count` loopback connections to a
/// listener in the same process and reports the growth of the resident set. Both ends live in this process, so
/// each counted connection is a pair (a server side and a client side). Kernel socket buffers are not part of
/// the resident set and are not counted.
struct IdleConnectionProbe: Sendable, CustomStringConvertible {
    /// Connections opened (each one a client and a server `TCPConnection`).
    let connections: Int
    /// Resident set before opening them, in bytes.
    let residentBefore: Int
    /// Resident set with all of them open and idle, in bytes.
    let residentAfter: Int

    /// Growth per connection pair, in bytes.
    var bytesPerPair: Int { (residentAfter - residentBefore) / max(connections, 1) }
    /// Growth per single connection end (half a pair), in bytes.
    var bytesPerConnection: Int { bytesPerPair / 2 }

    /// The measurement in one line: resident set before and after, bytes per pair and per connection.
    var description: String {
        "\(connections) idle loopback connections: RSS \(residentBefore / 1024) KiB → \(residentAfter / 1024) KiB, "
            + "\(bytesPerPair) B per client+server pair, \(bytesPerConnection) B per connection"
    }

    /// Opens `count` idle connections on `group` over 127.0.0.1, measures, then closes them.
    /// Needs about `2 * count` file descriptors (see `FileDescriptorLimit.raiseSoftLimitToHard()`).
    /// - Returns: nil where the resident set cannot be read (only Linux's `/proc/self/statm` is supported).
    static func measure(count: Int, group: EventLoopGroup) async throws -> IdleConnectionProbe? {
        let listener = try TCPListener.bind(host: "127.0.0.1", port: 0, group: group) { _ in IdleHandler() }
        defer { listener.close() }
        // Warm up: let the loops grow their registries and buffers, so the measurement sees connections only.
        var clients = try await openClients(min(count, 64), port: listener.port, group: group)
        try await closeAll(clients, listener: listener)
        guard let before = residentSetBytes() else { return nil }
        clients = try await openClients(count, port: listener.port, group: group)
        while listener.connectionCount < count { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(50))
        guard let after = residentSetBytes() else { return nil }
        try await closeAll(clients, listener: listener)
        return IdleConnectionProbe(connections: count, residentBefore: before, residentAfter: after)
    }

    private static func openClients(_ count: Int, port: Int, group: EventLoopGroup) async throws -> [TCPConnection] {
        var clients: [TCPConnection] = []
        clients.reserveCapacity(count)
        for _ in 0..<count {
            clients.append(try await TCPConnection.connect(host: "127.0.0.1", port: port, on: group.next()) { _ in IdleHandler() })
        }
        return clients
    }

    private static func closeAll(_ clients: [TCPConnection], listener: TCPListener) async throws {
        for client in clients { client.loop.execute { client.abort() } }
        while listener.connectionCount > 0 { try await Task.sleep(for: .milliseconds(5)) }
    }

    /// The resident set size of this process, in bytes.
    static func residentSetBytes() -> Int? {
        #if os(Linux)
        let fd = open("/proc/self/statm", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { _ = close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let fields = String(decoding: buffer[0..<count], as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        return nil
        #endif
    }
}

/// The handler of a probe connection: ignores everything, as an idle connection's owner would.
private final class IdleHandler: TCPConnectionHandler {
    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {}
    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {}
}
