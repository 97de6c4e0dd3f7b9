/// Why a client refused the server's answer to its upgrade request (RFC 6455 §4.1); the
/// client then fails the connection without speaking WebSocket.
package enum WebSocketHandshakeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status is not 101 (e.g. 401, 426, 503).
    case unexpectedStatus(Int, reason: String)
    /// No `Upgrade: websocket` in the response.
    case missingUpgradeHeader
    /// `Connection` does not contain the `upgrade` token.
    case missingConnectionUpgrade
    /// `Sec-WebSocket-Accept` is missing or does not match the key we sent.
    case invalidAccept
    /// The server chose a subprotocol we did not offer.
    case unexpectedSubprotocol(String)
    /// The server enabled an extension we did not offer (we offer none).
    case unexpectedExtension(String)

    /// What went wrong, phrased for the log or the user.
    package var description: String {
        switch self {
        case .unexpectedStatus(let status, let reason): "server answered \(status) \(reason) instead of 101 Switching Protocols"
        case .missingUpgradeHeader: "server response lacks Upgrade: websocket"
        case .missingConnectionUpgrade: "server response lacks Connection: Upgrade"
        case .invalidAccept: "server's Sec-WebSocket-Accept does not match our key"
        case .unexpectedSubprotocol(let name): "server chose subprotocol \(name), which we did not offer"
        case .unexpectedExtension(let name): "server enabled extension \(name), which we did not offer"
        }
    }
}
