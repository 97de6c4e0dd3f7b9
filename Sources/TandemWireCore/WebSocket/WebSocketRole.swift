/// Which end of a WebSocket connection this side is. It decides the masking rule of
/// RFC 6455 §5.1: clients mask every frame they send, servers never mask.
package enum WebSocketRole: Sendable, Hashable {
    /// The side that accepted the connection; it receives masked frames and sends unmasked ones.
    case server
    /// The side that opened the connection; it receives unmasked frames and sends masked ones.
    case client

    /// Whether frames sent by this side must be masked.
    package var masksOutgoingFrames: Bool { self == .client }
}
