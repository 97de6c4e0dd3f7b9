/// Why a server refused a WebSocket upgrade request. Each case carries the HTTP response to
/// send before closing the connection.
package enum WebSocketUpgradeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The method is not GET (405).
    case methodNotAllowed(String)
    /// The request is HTTP/1.0; upgrades need HTTP/1.1 (400).
    case versionTooOld
    /// No `Upgrade: websocket` (426, naming the protocol to upgrade to).
    case missingUpgradeHeader
    /// `Connection` does not list the `upgrade` token (400).
    case missingConnectionUpgrade
    /// `Sec-WebSocket-Key` is missing, repeated, or not base64 of 16 bytes (400).
    case invalidKey
    /// `Sec-WebSocket-Version` is missing (400).
    case missingVersion
    /// `Sec-WebSocket-Version` is not 13 (426 with `Sec-WebSocket-Version: 13`).
    case unsupportedVersion(String)

    /// The status code of ``response``.
    package var status: Int {
        switch self {
        case .methodNotAllowed: 405
        case .missingUpgradeHeader, .unsupportedVersion: 426
        default: 400
        }
    }

    /// The refusal to send, with `Connection: close` and a plain-text explanation; 405 names
    /// the allowed method, 426 the protocol and version to use (RFC 6455 §4.4).
    package var response: HTTPResponse {
        var headers: HTTPHeaders = ["Connection": "close", "Content-Type": "text/plain; charset=utf-8"]
        switch self {
        case .methodNotAllowed:
            headers.add(name: "Allow", value: "GET")
        case .missingUpgradeHeader:
            headers.add(name: "Upgrade", value: "websocket")
            headers.add(name: "Sec-WebSocket-Version", value: WebSocketHandshake.version)
        case .unsupportedVersion:
            headers.add(name: "Sec-WebSocket-Version", value: WebSocketHandshake.version)
        default:
            break
        }
        return HTTPResponse(status: status, headers: headers, body: Array((description + "\n").utf8))
    }

    /// What was wrong, phrased for the client and the log.
    package var description: String {
        switch self {
        case .methodNotAllowed(let method): "WebSocket upgrades use GET, not \(method)"
        case .versionTooOld: "WebSocket upgrades need HTTP/1.1"
        case .missingUpgradeHeader: "this endpoint needs a WebSocket upgrade (Upgrade: websocket)"
        case .missingConnectionUpgrade: "the Connection header must contain the upgrade token"
        case .invalidKey: "Sec-WebSocket-Key must be one base64-encoded 16-byte value"
        case .missingVersion: "Sec-WebSocket-Version is missing; send 13"
        case .unsupportedVersion(let version): "WebSocket version \(version) is not supported; use 13"
        }
    }
}
