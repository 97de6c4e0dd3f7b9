import TandemWireCore

/// How a `SyncSession` reaches the server: each connection attempt asks the transport for one WebSocket.
///
/// A transport only moves messages. Policy — heartbeat, reconnect, backoff, what a close code means — stays
/// in the session, so a session behaves the same over every transport. TandemWire's event loops
/// (`WireTransport`, the default) and `URLSessionWebSocketTask` (`URLSessionWebSocketTransport`, for Apple
/// apps) are provided; tests drive a session over an in-memory transport with no socket.
///
/// There is no ping in the protocol: the session's heartbeat is protocol v1's own `ping`/`pong`
/// messages (they carry the time the RTT estimate needs), so a transport needs no WebSocket pings.
public protocol SyncTransport: Sendable {
    /// Opens a WebSocket as `request` describes and returns once the server accepted the upgrade.
    /// - Throws: `SyncTransportError`; `isPermanent` tells the session whether retrying can help.
    func connect(_ request: SyncTransportRequest) async throws(SyncTransportError) -> any SyncTransportConnection
}

/// One open WebSocket of a `SyncTransport`.
public protocol SyncTransportConnection: Sendable {
    /// The server's messages, then `.closed` (always last). Single consumer.
    var events: AsyncStream<WebSocketClientEvent> { get }

    /// Sends a text message (valid UTF-8). Suspends while the transport's send buffer is full, so a fast
    /// producer is paced by the network; messages from one task leave in call order.
    /// - Throws: `SyncTransportError.closed` once the connection is closing or closed.
    func send(text: [UInt8]) async throws(SyncTransportError)

    /// Runs the close handshake with `code` and returns once the connection is closed (bounded).
    func close(code: UInt16, reason: String) async

    /// Drops the connection at once, without a close frame; `events` ends with `.closed(code: nil, …)`.
    func abort()
}
