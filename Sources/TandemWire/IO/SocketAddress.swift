#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// An IPv4 or IPv6 socket address (address and port), as used by listeners and outgoing connections.
///
/// Values are plain data: `Sendable`, `Hashable`, and printable as `127.0.0.1:8080` or `[::1]:8080`.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    enum Storage: Sendable, Hashable {
        case v4(address: UInt32, port: UInt16)            // both in network byte order
        case v6(address: [UInt8], port: UInt16, scope: UInt32)  // 16 bytes; port in network byte order
    }

    let storage: Storage

    /// Parses an IPv4 (`127.0.0.1`) or IPv6 (`::1`, optionally in brackets) literal. Never blocks.
    /// - Throws: `IOError.unresolvableHost` when `host` is not an IP literal, `IOError.invalidPort` for a bad port.
    public init(ipLiteral host: String, port: Int) throws {
        guard (0...65535).contains(port) else { throw IOError.invalidPort(port) }
        let netPort = UInt16(port).bigEndian
        var text = host
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            storage = .v4(address: v4.s_addr, port: netPort)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            storage = .v6(address: withUnsafeBytes(of: &v6) { Array($0) }, port: netPort, scope: 0)
            return
        }
        throw IOError.unresolvableHost(host: host, message: "not an IPv4 or IPv6 literal")
    }

    /// Reads an address the kernel filled in (`accept`, `getsockname`, `getpeername`, `getaddrinfo`).
    init?(_ raw: UnsafePointer<sockaddr>) {
        switch Int32(raw.pointee.sa_family) {
        case AF_INET:
            let sin = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in.self)
            storage = .v4(address: sin.sin_addr.s_addr, port: sin.sin_port)
        case AF_INET6:
            var sin6 = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in6.self)
            let bytes = withUnsafeBytes(of: &sin6.sin6_addr) { Array($0) }
            storage = .v6(address: bytes, port: sin6.sin6_port, scope: sin6.sin6_scope_id)
        default:
            return nil
        }
    }

    /// The port in host byte order.
    public var port: Int {
        switch storage {
        case .v4(_, let port), .v6(_, let port, _): return Int(UInt16(bigEndian: port))
        }
    }

    /// True for an IPv6 address.
    public var isIPv6: Bool {
        if case .v6 = storage { return true }
        return false
    }

    /// The address without the port, e.g. `127.0.0.1` or `::1`.
    public var host: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch storage {
        case .v4(let address, _):
            var addr = in_addr(s_addr: address)
            _ = inet_ntop(AF_INET, &addr, &buffer, socklen_t(buffer.count))
        case .v6(let address, _, _):
            var addr = in6_addr()
            withUnsafeMutableBytes(of: &addr) { $0.copyBytes(from: address) }
            _ = inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count))
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Who is behind the address for a per-client limit: an IPv4 address whole (an IPv4-mapped IPv6 one
    /// as its IPv4 address), any other IPv6 address by its /64 network (one subscriber's share: a host
    /// that changes its interface id stays one client), e.g. `192.0.2.7` or `2001:db8:1:2::/64`.
    public var clientNetwork: String {
        guard case .v6(let address, _, _) = storage else { return host }
        if address.prefix(10).allSatisfy({ $0 == 0 }) && address[10] == 0xFF && address[11] == 0xFF {
            return address[12...].map { String($0) }.joined(separator: ".")
        }
        let network = (try? SocketAddress(ipLiteral: Self.ipv6Text(Array(address.prefix(8)) + [UInt8](repeating: 0, count: 8)), port: 0))?.host
        return (network ?? host) + "/64"
    }

    /// The full hexadecimal text of 16 IPv6 bytes.
    private static func ipv6Text(_ bytes: [UInt8]) -> String {
        stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }

    /// `host:port`, with IPv6 hosts in brackets (`[::1]:8080`).
    public var description: String {
        isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The address family constant for `socket(2)`.
    var family: Int32 { isIPv6 ? AF_INET6 : AF_INET }

    /// Calls `body` with this address as a `sockaddr` pointer and its length.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) rethrows -> R {
        switch storage {
        case .v4(let address, let port):
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port
            sin.sin_addr = in_addr(s_addr: address)
            return try withUnsafePointer(to: &sin) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .v6(let address, let port, let scope):
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port
            sin6.sin6_scope_id = scope
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: address) }
            return try withUnsafePointer(to: &sin6) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }

    /// Resolves `host` to addresses with `getaddrinfo` (TCP, any family), in the resolver's preference order.
    /// IP literals are parsed without touching the resolver. This call may block on DNS: do not call it on an event loop.
    public static func resolveBlocking(host: String, port: Int) throws -> [SocketAddress] {
        if let literal = try? SocketAddress(ipLiteral: host, port: port) { return [literal] }
        guard (0...65535).contains(port) else { throw IOError.invalidPort(port) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if os(Linux)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            let message = gai_strerror(status).map { String(cString: $0) } ?? "resolver error \(status)"
            throw IOError.unresolvableHost(host: host, message: message)
        }
        defer { freeaddrinfo(list) }
        var result: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            if let raw = entry.pointee.ai_addr, let address = SocketAddress(UnsafePointer(raw)), !result.contains(address) {
                result.append(address)
            }
            cursor = entry.pointee.ai_next
        }
        if result.isEmpty { throw IOError.unresolvableHost(host: host, message: "no IPv4 or IPv6 address") }
        return result
    }

    /// Resolves `host` off the calling thread (a global dispatch queue runs `getaddrinfo`), so it is safe to await
    /// from any task. IP literals return at once.
    public static func resolve(host: String, port: Int) async throws -> [SocketAddress] {
        if let literal = try? SocketAddress(ipLiteral: host, port: port) { return [literal] }
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try resolveBlocking(host: host, port: port) })
            }
        }
    }
}
