import TandemProtocol

/// TandemWire: HTTP/1.1 and WebSocket (RFC 6455) on the project's own event loop.
/// Protocol logic is byte-in/events-out and runs in tests without sockets.
package enum TandemWire {
    /// The WebSocket protocol version this implementation speaks (RFC 6455).
    package static let webSocketVersion = 13
}
