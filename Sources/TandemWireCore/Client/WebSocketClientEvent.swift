/// Something the server sent, as a ``WebSocketClient`` delivers it.
public enum WebSocketClientEvent: Sendable, Equatable {
    /// A complete text message: its UTF-8 bytes, already validated.
    case text([UInt8])
    /// A complete binary message.
    case binary([UInt8])
    /// The connection is gone; always the last event. `code` is the server's close code, or this side's when
    /// it started the close or failed the connection, or nil when the connection dropped without a close frame.
    case closed(code: UInt16?, reason: String)
}
