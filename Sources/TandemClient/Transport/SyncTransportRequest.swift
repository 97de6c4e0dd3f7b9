/// What a `SyncSession` asks of its transport for one connection attempt.
public struct SyncTransportRequest: Sendable, Hashable {
    /// The server's sync URL, `ws://` or `wss://`.
    public var url: String
    /// The subprotocols to offer (the session offers `tandem.v1`).
    public var subprotocols: [String]
    /// Extra request headers, in order.
    public var headers: [SyncTransportHeader]
    /// Bound of the connect, the TLS handshake and the WebSocket upgrade together.
    public var timeout: Duration
    /// The largest message accepted from the server, bytes; a larger one fails the connection.
    public var maxMessageSize: Int

    /// Creates a request.
    public init(url: String, subprotocols: [String] = [], headers: [SyncTransportHeader] = [], timeout: Duration = .seconds(10),
                maxMessageSize: Int = 16 << 20) {
        self.url = url
        self.subprotocols = subprotocols
        self.headers = headers
        self.timeout = timeout
        self.maxMessageSize = maxMessageSize
    }
}

/// One request header field.
public struct SyncTransportHeader: Sendable, Hashable {
    /// The field name.
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a header field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
