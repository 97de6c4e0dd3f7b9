/// The frame opcodes defined by RFC 6455 §5.2. All others are reserved and a receiver fails
/// the connection with 1002 when it sees one.
package enum WebSocketOpcode: UInt8, Sendable, Hashable {
    /// Continues a fragmented data message.
    case continuation = 0x0
    /// First frame of a UTF-8 text message.
    case text = 0x1
    /// First frame of a binary message.
    case binary = 0x2
    /// Close handshake frame.
    case close = 0x8
    /// Keep-alive request; the peer answers with a pong carrying the same payload.
    case ping = 0x9
    /// Keep-alive answer (or unsolicited heartbeat).
    case pong = 0xA

    /// Control frames (close, ping, pong) carry at most 125 bytes and are never fragmented.
    package var isControl: Bool { rawValue & 0x8 != 0 }
}
