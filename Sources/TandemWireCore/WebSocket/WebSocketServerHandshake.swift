/// The server side of the opening handshake (RFC 6455 §4.2): validates an upgrade request
/// and negotiates the subprotocol.
///
/// Origin checks are left to the owner: the accepted ``WebSocketUpgrade`` exposes `origin`.
package struct WebSocketServerHandshake: Sendable {
    /// The subprotocols this server speaks, most preferred first (e.g. `["tandem.v1"]`).
    package var supportedSubprotocols: [String]

    /// Creates a handshake validator for a server supporting `supportedSubprotocols`.
    package init(supportedSubprotocols: [String] = []) {
        self.supportedSubprotocols = supportedSubprotocols
    }

    /// True when `request` asks for a WebSocket upgrade at all (`Upgrade: websocket`), so a
    /// router can tell it from a plain HTTP request on the same port.
    package static func isUpgradeRequest(_ request: HTTPRequest) -> Bool {
        request.headers.containsToken("websocket", in: "Upgrade")
    }

    /// Validates an upgrade request. The chosen subprotocol is the server's most preferred
    /// one among those the client offered (nil when none matches; RFC 6455 lets the server
    /// answer without one, and the owner may refuse such a client).
    package func evaluate(_ request: HTTPRequest) throws(WebSocketUpgradeError) -> WebSocketUpgrade {
        guard request.method == "GET" else { throw .methodNotAllowed(request.method) }
        guard request.version != .http1_0 else { throw .versionTooOld }
        let headers = request.headers
        guard headers.containsToken("websocket", in: "Upgrade") else { throw .missingUpgradeHeader }
        guard headers.containsToken("upgrade", in: "Connection") else { throw .missingConnectionUpgrade }
        let keys = headers.values(for: "Sec-WebSocket-Key")
        guard keys.count == 1, WebSocketHandshake.isValidKey(keys[0]) else { throw .invalidKey }
        let versions = headers.listElements(for: "Sec-WebSocket-Version")
        guard !versions.isEmpty else { throw .missingVersion }
        guard versions == [WebSocketHandshake.version] else {
            throw .unsupportedVersion(versions.joined(separator: ", "))
        }
        let offered = headers.listElements(for: "Sec-WebSocket-Protocol")
        let chosen = supportedSubprotocols.first { offered.contains($0) }
        return WebSocketUpgrade(request: request, key: keys[0], subprotocol: chosen, origin: headers["Origin"], offeredSubprotocols: offered)
    }
}
