import TandemProtocol

/// Settings of a ``WebSocketServer``. Plain `Sendable` data with the defaults of the Tandem sync protocol.
package struct WebSocketServerConfiguration: Sendable {
    /// The address to bind (IPv4/IPv6 literal or a name resolved at start-up).
    package var host = "127.0.0.1"
    /// The port to bind; 0 (the default) picks a free one (read it back from ``WebSocketServer/port``).
    package var port = 0
    /// The only path that accepts WebSocket upgrades.
    package var path = TandemProtocol.syncPath
    /// The subprotocols spoken, most preferred first; the first one the client also offers is chosen.
    package var subprotocols = [TandemProtocol.subprotocol]
    /// Browser origins allowed to connect. Empty allows any; otherwise an upgrade whose `Origin` header is not
    /// listed gets 403. Requests without `Origin` (non-browser clients) are always allowed.
    package var allowedOrigins: [String] = []
    /// The largest message accepted (sum of fragments); larger ones close the connection with 1009.
    package var maxMessageSize = WebSocketFrameDecoder.defaultMaxMessageSize
    /// The most TCP connections served at once (upgraded or not); more are closed right after `accept`.
    package var maxConnections = 50_000
    /// How long a connection may take to send a complete request (and, with keep-alive, how long it may stay
    /// quiet between requests) before it is dropped.
    package var handshakeTimeout: Duration = .seconds(10)
    /// No frame received for this long → ``WebSocketHandler/webSocketIdleTimeoutFired(_:)``; nil disables it.
    package var idleTimeout: Duration? = .seconds(30)
    /// Bytes queued for one connection beyond this → the connection is dropped and its handler hears
    /// `webSocketDidClose(code: 4002, clean: false)`.
    package var sendQueueLimit = 4 * 1024 * 1024
    /// The largest request line plus headers; larger requests get 431.
    package var maxHeaderBytes = 16 * 1024
    /// The largest request body (`Content-Length`); larger requests get 413 before the body is read.
    package var maxBodyBytes = 16 * 1024
    /// Whether malformed plain requests (400, 413, 431, 501, 505) and unknown routes (404) are answered with a
    /// plain-text or a JSON body (`{"error": …, "message": …}`).
    package var errorBodies: ErrorBodyFormat = .plainText
    /// How long a close handshake this side started waits for the peer's close frame before dropping the
    /// connection.
    package var closeTimeout: Duration = .seconds(2)
    /// Serves every connection over TLS with this server context (`wss://`, `https://` on the same port);
    /// nil serves plain text. A client that sends a plain request to a TLS port gets a plain 400 naming
    /// `https://`, then the connection closes.
    package var tls: TLSContext?
    /// Every response sent over TLS (routes, errors, upgrades) carries `Strict-Transport-Security: max-age=` this
    /// many seconds: a browser that saw it uses only `https://` and `wss://` for the host that long, so a network
    /// attacker cannot downgrade a later visit to plain text. Nil sends none; never sent in plain text, where
    /// browsers must ignore it (RFC 6797).
    package var strictTransportSecurityMaxAge: Int?

    /// The body format of the errors the server itself answers with.
    package enum ErrorBodyFormat: Sendable {
        /// `text/plain` with the message.
        case plainText
        /// `application/json` with `error` and `message`.
        case json
    }

    /// Creates the default configuration.
    package init() {}

    /// The TCP settings of every accepted connection: the hard queue limit is `sendQueueLimit`.
    var tcpConfiguration: TCPConnectionConfiguration {
        let limit = max(sendQueueLimit, 1)
        let high = min(1 << 20, limit)
        return TCPConnectionConfiguration(
            highWaterMark: high, lowWaterMark: min(1 << 18, high), maxQueuedBytes: limit, closeTimeout: closeTimeout)
    }
}
