import TandemProtocol
/// The client side of the opening handshake (RFC 6455 §4.1): builds the upgrade request
/// with a fresh random key and validates the server's 101 response.
///
/// Portable (no platform networking); pair it with ``HTTPResponseParser`` to read the answer.
package struct WebSocketClientHandshake: Sendable {
    /// The `Sec-WebSocket-Key` sent (base64 of 16 random bytes).
    package let key: String
    /// The subprotocols offered, most preferred first.
    package let offeredSubprotocols: [String]
    /// The upgrade request to send.
    package let request: HTTPRequest

    /// Builds the upgrade request for `path` on `host` (include a non-default port as
    /// `host:port`), offering `subprotocols`, with an optional `Origin` and extra headers
    /// (e.g. `Authorization`).
    package init(
        host: String, path: String = "/", subprotocols: [String] = [], origin: String? = nil,
        extraHeaders: HTTPHeaders = [:], random: any RandomByteSource = SecureRandom()
    ) {
        let key = WebSocketHandshake.makeKey(random: random)
        var headers: HTTPHeaders = [
            "Host": host,
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Key": key,
            "Sec-WebSocket-Version": WebSocketHandshake.version,
        ]
        if !subprotocols.isEmpty {
            headers.add(name: "Sec-WebSocket-Protocol", value: subprotocols.joined(separator: ", "))
        }
        if let origin {
            headers.add(name: "Origin", value: origin)
        }
        for field in extraHeaders {
            headers.add(name: field.name, value: field.value)
        }
        self.key = key
        self.offeredSubprotocols = subprotocols
        self.request = HTTPRequest(method: "GET", target: path, headers: headers)
    }

    /// The request's wire form.
    package var requestBytes: [UInt8] {
        var output: [UInt8] = []
        request.serialize(into: &output)
        return output
    }

    /// Checks the server's response head; returns the negotiated subprotocol (nil for none).
    package func validate(_ response: HTTPResponse) throws(WebSocketHandshakeError) -> String? {
        guard response.status == 101 else { throw .unexpectedStatus(response.status, reason: response.reason) }
        let headers = response.headers
        guard headers.containsToken("websocket", in: "Upgrade") else { throw .missingUpgradeHeader }
        guard headers.containsToken("upgrade", in: "Connection") else { throw .missingConnectionUpgrade }
        let accepts = headers.values(for: "Sec-WebSocket-Accept")
        guard accepts.count == 1,
              ConstantTime.equals(Array(accepts[0].utf8), Array(WebSocketHandshake.acceptValue(forKey: key).utf8))
        else { throw .invalidAccept }
        if let extensionName = headers.listElements(for: "Sec-WebSocket-Extensions").first {
            throw .unexpectedExtension(extensionName)
        }
        let chosen = headers.listElements(for: "Sec-WebSocket-Protocol")
        guard let subprotocol = chosen.first else { return nil }
        guard chosen.count == 1, offeredSubprotocols.contains(subprotocol) else {
            throw .unexpectedSubprotocol(chosen.joined(separator: ", "))
        }
        return subprotocol
    }
}
