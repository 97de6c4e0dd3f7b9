/// A text message encoded once as an unmasked (server-to-client) frame and then queued to many server
/// connections without copying: every connection writes the same immutable bytes.
package final class WebSocketOutboundFrame: Sendable {
    /// The complete frame (header and payload) as shared bytes.
    let frame: SharedBytes
    /// The size of the message's payload in bytes.
    package let payloadCount: Int

    /// Encodes `utf8` (the caller guarantees valid UTF-8) as one unmasked text frame.
    package init(text utf8: [UInt8]) {
        var output: [UInt8] = []
        utf8.withUnsafeBytes { WebSocketFrameEncoder.encodeFrame(opcode: .text, payload: $0, maskKey: nil, into: &output) }
        frame = SharedBytes(output)
        payloadCount = utf8.count
    }

    /// The size of the encoded frame (header plus payload) in bytes.
    package var frameCount: Int { frame.count }
}
