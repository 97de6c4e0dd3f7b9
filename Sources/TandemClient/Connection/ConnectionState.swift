import TandemProtocol

/// Where a client connection stands. `reconnecting` carries the attempt number (1 for the first
/// retry) and the wait drawn before that attempt starts.
public enum ConnectionState: Sendable, Hashable, CustomStringConvertible {
    /// Created, never started.
    case idle
    /// Opening the transport (TCP + WebSocket upgrade).
    case connecting
    /// Transport open, `hello` sent, waiting for `welcome`.
    case handshaking
    /// `welcome` received: the session is established.
    case connected
    /// Lost; waiting `delay` before attempt `attempt`.
    case reconnecting(attempt: Int, delay: Duration)
    /// Put aside by the app (`SyncSession.suspend()`, e.g. in the background): no connection and no
    /// retries until `resume()`; local changes still queue.
    case suspended
    /// Finished for good; no retry will follow.
    case closed(ConnectionCloseReason)

    /// A short name for logs and the app's status line.
    public var description: String {
        switch self {
        case .idle: "idle"
        case .connecting: "connecting"
        case .handshaking: "handshaking"
        case .connected: "connected"
        case .reconnecting(let attempt, let delay): "reconnecting (attempt \(attempt) in \(delay.totalMilliseconds) ms)"
        case .suspended: "suspended"
        case .closed(let reason): "closed (\(reason))"
        }
    }
}

/// Why a connection ended for good.
public enum ConnectionCloseReason: Sendable, Hashable, CustomStringConvertible {
    /// The app closed it.
    case closedByApp
    /// The server closed with a code that forbids retrying (4003 forbidden, 4004 room deleted, 4009 replaced).
    case refused(CloseCode)
    /// The token was refused (4001) and no fresh token was available or a fresh one failed too.
    case unauthorized
    /// The policy's attempt limit was reached.
    case gaveUp(attempts: Int)
    /// The transport cannot connect and retrying would not help: a bad URL, a refused certificate, TLS
    /// settings that cannot be loaded.
    case transportFailed(SyncTransportError)

    /// What happened and what the user can do.
    public var description: String {
        switch self {
        case .closedByApp: "closed by the app"
        case .refused(let code): "the server refused the connection: \(code); retrying would not help"
        case .unauthorized: "the token was refused (4001); sign in again to get a fresh token"
        case .gaveUp(let attempts): "gave up after \(attempts) attempts; check the network and reconnect"
        case .transportFailed(let error): "cannot connect: \(error); retrying would not help"
        }
    }
}
