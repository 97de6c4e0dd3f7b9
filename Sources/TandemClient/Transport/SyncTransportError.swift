import TandemWireCore

/// Why a transport could not open a connection or send on it.
public enum SyncTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL cannot be used: malformed, or a scheme other than `ws://` / `wss://`.
    case invalidURL(String)
    /// TLS could not be set up: the server's certificate was refused, the server does not speak TLS, or the
    /// client's TLS settings could not be loaded.
    case tls(TLSError)
    /// The server could not be reached (refused, unreachable, unresolvable name, dropped during the upgrade).
    case unreachable(String)
    /// The connect and upgrade took longer than the request's timeout.
    case timeout
    /// The server answered, but not with a WebSocket upgrade (its status, or what was wrong).
    case handshakeFailed(String)
    /// The connection is closing or closed; nothing more can be sent.
    case closed
    /// This platform's networking cannot open a WebSocket at all (FoundationNetworking on a libcurl built
    /// without WebSockets, as on Debian): use another transport (`WireTransport` on Linux).
    case unsupportedPlatform(String)

    /// Whether retrying the same request cannot help: a bad URL, a certificate problem, a configuration
    /// error. The session ends instead of retrying forever.
    public var isPermanent: Bool {
        switch self {
        case .invalidURL, .unsupportedPlatform: true
        case .tls(let error): error.isPermanent
        case .unreachable, .timeout, .handshakeFailed, .closed: false
        }
    }

    /// What went wrong, phrased for a log line or the user.
    public var description: String {
        switch self {
        case .invalidURL(let message): "invalid sync URL: \(message)"
        case .tls(let error): error.description
        case .unreachable(let message): "could not connect: \(message)"
        case .timeout: "timed out connecting and completing the WebSocket handshake"
        case .handshakeFailed(let message): "WebSocket handshake failed: \(message)"
        case .closed: "the connection is closed"
        case .unsupportedPlatform(let message): "this platform cannot open a WebSocket with this transport (\(message)); use WireTransport"
        }
    }
}
