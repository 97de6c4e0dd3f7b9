import TandemProtocol

/// A server message encoded to JSON once, shared by every connection it is sent to.
///
/// Fan-out of one patch to a room encodes one `OutboundMessage`; each connection frames and
/// queues the same bytes, so the per-recipient cost is a queue append, not a JSON encode.
public final class OutboundMessage: Sendable {
    /// The UTF-8 JSON text of the message.
    public let payload: [UInt8]
    /// The message's `type`, for logs and metrics.
    public let type: String

    /// Encodes `message`.
    public init(_ message: ServerMessage) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        message.encode(into: &bytes)
        payload = bytes
        type = message.type
    }
}
