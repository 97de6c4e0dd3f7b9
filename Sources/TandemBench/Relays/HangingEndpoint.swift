#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A webhook endpoint that never answers: a listening socket on 127.0.0.1 that accepts nothing, so
/// connections complete in the kernel's backlog and every request waits for the sender's timeout.
/// What the `tandem-webhook-hanging` deployment sends its events to.
final class HangingEndpoint: Sendable {
    /// The port it listens on.
    let port: Int
    private let descriptor: Int32

    /// - Throws: `RelayBenchError` when the socket cannot listen.
    init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RelayBenchError(description: "no socket for the hanging webhook endpoint") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic -> Bool in
                bind(socket, generic, length) == 0 && listen(socket, 4_096) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        guard bound else {
            close(socket)
            throw RelayBenchError(description: "the hanging webhook endpoint cannot listen on 127.0.0.1")
        }
        descriptor = socket
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// The URL servers are given.
    var url: String { "http://127.0.0.1:\(port)/never-answers" }

    deinit { close(descriptor) }
}
