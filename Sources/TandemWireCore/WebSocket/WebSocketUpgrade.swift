/// An accepted WebSocket upgrade request: what the server owner needs to decide on it
/// (origin, path, negotiated subprotocol) and the 101 response that completes it.
package struct WebSocketUpgrade: Sendable, Equatable {
    /// The upgrade request as received.
    package var request: HTTPRequest
    /// The client's `Sec-WebSocket-Key`.
    package var key: String
    /// The subprotocol chosen from those both sides support, or nil when there is none in
    /// common or the client offered none.
    package var subprotocol: String?
    /// The `Origin` header (sent by browsers), for the server owner's allow-list decision.
    package var origin: String?
    /// Every subprotocol the client offered, in its order.
    package var offeredSubprotocols: [String]

    /// Creates an accepted upgrade.
    package init(request: HTTPRequest, key: String, subprotocol: String?, origin: String?, offeredSubprotocols: [String]) {
        self.request = request
        self.key = key
        self.subprotocol = subprotocol
        self.origin = origin
        self.offeredSubprotocols = offeredSubprotocols
    }

    /// The `101 Switching Protocols` response with `Sec-WebSocket-Accept` and, if one was
    /// chosen, `Sec-WebSocket-Protocol`; `extraHeaders` are appended. No extension is ever
    /// accepted.
    package func response(extraHeaders: HTTPHeaders = [:]) -> HTTPResponse {
        var headers: HTTPHeaders = [
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Accept": WebSocketHandshake.acceptValue(forKey: key),
        ]
        if let subprotocol {
            headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol)
        }
        for field in extraHeaders {
            headers.add(name: field.name, value: field.value)
        }
        return HTTPResponse(status: 101, headers: headers)
    }
}
