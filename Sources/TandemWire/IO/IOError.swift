#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure of the socket and event-loop layer, with the operating-system error number where there is one.
///
/// Every case renders a message an operator can act on (`description`), e.g.
/// `connect to 127.0.0.1:9 failed: Connection refused (errno 111)`.
package enum IOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A system call failed; `operation` names what was attempted, `errno` is the raw error number.
    case system(operation: String, errno: Int32)
    /// The host text is neither an IP literal nor a name the resolver could turn into an address.
    case unresolvableHost(host: String, message: String)
    /// The port number is outside 0...65535.
    case invalidPort(Int)
    /// An outgoing connection did not complete within its timeout.
    case connectTimeout(host: String, port: Int)
    /// More bytes were queued for writing than the connection's hard limit allows (a consumer too slow to keep up).
    case writeQueueOverflow(limit: Int)
    /// A graceful close did not finish (pending writes flushed, peer's end of stream seen) within its bound.
    case closeTimeout
    /// The event loop the object belongs to was shut down.
    case eventLoopShutdown
    /// TLS failed on the connection: the handshake (a certificate problem, a peer that does not speak TLS) or
    /// the encrypted stream.
    case tls(TLSError)

    /// The operating-system error number, if this error came from a system call.
    package var errno: Int32? {
        if case .system(_, let code) = self { return code }
        return nil
    }

    /// True when the peer reset the connection (ECONNRESET or EPIPE), the usual sign of an abortive close.
    package var isConnectionReset: Bool {
        errno == ECONNRESET || errno == EPIPE
    }

    /// A message naming what failed and why, with the errno number where there is one.
    package var description: String {
        switch self {
        case .system(let operation, let code):
            return "\(operation) failed: \(IOError.message(forErrno: code)) (errno \(code))"
        case .unresolvableHost(let host, let message):
            return "cannot resolve host '\(host)': \(message)"
        case .invalidPort(let port):
            return "invalid port \(port): must be between 0 and 65535"
        case .connectTimeout(let host, let port):
            return "connect to \(host):\(port) timed out"
        case .writeQueueOverflow(let limit):
            return "write queue exceeded its limit of \(limit) bytes: the peer does not read fast enough"
        case .closeTimeout:
            return "graceful close did not complete in time; the connection was dropped"
        case .eventLoopShutdown:
            return "the event loop was shut down"
        case .tls(let error):
            return error.description
        }
    }

    /// The system's text for an error number (`strerror`).
    static func message(forErrno code: Int32) -> String {
        guard let text = strerror(code) else { return "unknown error" }
        return String(cString: text)
    }

    /// Captures the current `errno` for a failed call.
    static func lastError(_ operation: @autoclosure () -> String) -> IOError {
        let code = currentErrno()
        return .system(operation: operation(), errno: code)
    }
}

/// The calling thread's current `errno`.
@inline(__always)
func currentErrno() -> Int32 {
    errno
}
