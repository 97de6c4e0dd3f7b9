#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import TandemWire

/// A loopback port that refuses connections until `close()`: a socket bound to it but not listening.
/// Unlike a closed listener's port, no other test's server can take it meanwhile.
struct RefusingPort {
    /// The port held.
    let port: Int
    private let fd: Int32

    /// Binds a socket to a free 127.0.0.1 port.
    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw IOError.system(operation: "socket", errno: errno) }
        let any = try SocketAddress(ipLiteral: "127.0.0.1", port: 0)
        guard any.withSockAddr({ bind(fd, $0, $1) }) == 0 else {
            let code = errno
            closeDescriptor(fd)
            throw IOError.system(operation: "bind", errno: code)
        }
        self.fd = fd
        port = try Socket.localAddress(fd).port
    }

    /// Lets the port go.
    func close() { closeDescriptor(fd) }
}

/// The C `close`, which `RefusingPort.close()` hides inside the type.
private func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
