/// Why a WebSocket client could not connect or send.
package enum WebSocketClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not a `ws://` or `wss://host[:port][/path]` URL.
    case invalidURL(String)
    /// The TCP connection could not be opened (refused, unreachable, unresolvable host...).
    case connectFailed(String)
    /// The TCP connect plus the opening handshake took longer than the timeout.
    case timeout
    /// The server did not accept the upgrade (its status, or what was wrong with its 101 response).
    case handshakeFailed(String)
    /// The connection is closing or closed; nothing more can be sent.
    case closed
    /// TLS could not be set up: the server's certificate was not accepted, the server does not speak TLS, or
    /// the client's TLS configuration could not be loaded. Retrying the same URL will fail the same way unless
    /// `isPermanent` is false.
    case tls(TLSError)

    /// What went wrong, phrased for a log line or the user.
    package var description: String {
        switch self {
        case .invalidURL(let message): "invalid WebSocket URL: \(message)"
        case .connectFailed(let message): "could not connect: \(message)"
        case .timeout: "timed out connecting and completing the WebSocket handshake"
        case .handshakeFailed(let message): "WebSocket handshake failed: \(message)"
        case .closed: "the WebSocket connection is closed"
        case .tls(let error): error.description
        }
    }
}
