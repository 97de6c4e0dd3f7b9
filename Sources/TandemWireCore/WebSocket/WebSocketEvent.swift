/// Something the peer said, as the application sees it: whole messages and control frames.
package enum WebSocketEvent: Sendable, Equatable {
    /// A complete text message, validated as UTF-8 (across all its fragments).
    case text(String)
    /// A complete text message as its UTF-8 bytes, already validated; delivered instead of
    /// ``text(_:)`` by a state machine created with `textAsBytes: true`, so a consumer that parses the
    /// bytes itself (e.g. JSON) never builds a `String`.
    case textBytes([UInt8])
    /// A complete binary message.
    case binary([UInt8])
    /// A ping with its payload; the connection state machine has already queued the pong.
    case ping([UInt8])
    /// A pong with its payload (an answer to our ping, or an unsolicited heartbeat).
    case pong([UInt8])
    /// The peer's close frame: `code` is nil when the frame had no payload (1005 semantics).
    case close(code: WebSocketCloseCode?, reason: String)
}
