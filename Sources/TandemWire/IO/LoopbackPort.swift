#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ports on 127.0.0.1 for programs that start a local server of their own (benchmarks, tests): a port
/// that is free now, and whether something accepts connections on a port yet.
package enum LoopbackPort {
    /// A TCP port on 127.0.0.1 that was free a moment ago (the one the kernel picks for port 0). Another
    /// process could take it before the caller binds it, so use it at once.
    /// - Throws: `IOError.system` when no socket could be bound.
    package static func free() throws(IOError) -> Int {
        let (port, descriptor) = try reserve()
        close(descriptor)
        return port
    }

    /// A TCP port on 127.0.0.1 held by a bound socket that does not listen: connections to it are refused,
    /// and no other socket can bind it until the caller closes `descriptor` (tests that need a port where
    /// nothing answers, while other tests start servers on free ports).
    /// - Throws: `IOError.system` when no socket could be bound.
    package static func reserve() throws(IOError) -> (port: Int, descriptor: Int32) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .system(operation: "socket", errno: errno) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw .system(operation: "bind", errno: code)
        }
        return (Int(UInt16(bigEndian: address.sin_port)), fd)
    }

    /// Whether a TCP connect to 127.0.0.1:`port` succeeds right now (a blocking connect; loopback
    /// answers at once).
    package static func isAccepting(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
