import TandemProtocol
import TandemWire

/// A server message encoded to JSON once, shared by every connection it is sent to.
///
/// Fan-out of one patch to a room encodes one `OutboundMessage` — JSON and WebSocket frame —
/// and every connection queues the same frame bytes, so the per-recipient cost is a queue
/// append, not an encode or a copy.
public final class OutboundMessage: Sendable {
    /// The UTF-8 JSON text of the message.
    public let payload: [UInt8]
    /// The message's `type`, for logs and metrics.
    public let type: String
    /// The unmasked WebSocket text frame carrying `payload`, shared by every recipient.
    package let frame: WebSocketOutboundFrame

    /// Encodes `message`.
    public init(_ message: ServerMessage) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        message.encode(into: &bytes)
        payload = bytes
        type = message.type
        frame = WebSocketOutboundFrame(text: bytes)
    }
}
