/// Writes RFC 6455 frames by appending them to a caller-provided buffer, so that several
/// frames can be batched into one write.
///
/// Unmasked frames (what a server sends) depend only on their content: encode a message
/// once and send the same bytes to every connection. Masked frames (what a client sends) get a
/// fresh 4-byte key from the injected ``RandomByteSource`` for every frame, as §5.3 requires.
/// The encoder holds no mutable state and is safe to share between threads.
package struct WebSocketFrameEncoder: Sendable {
    /// The largest payload of a control frame (§5.5).
    package static let maxControlPayload = 125

    private let random: any RandomByteSource
    /// When set, masking keys come from this pool (filled from `random` in batches) instead of four bytes of
    /// `random` per frame.
    private let keyPool: MaskKeyPool?

    /// Creates an encoder that draws masking keys from `random`.
    package init(random: any RandomByteSource = SecureRandom()) {
        self.random = random
        keyPool = nil
    }

    /// Creates an encoder that draws masking keys from `random` a batch at a time (for a connection that masks
    /// every frame it sends).
    package init(pooledKeysFrom random: any RandomByteSource) {
        self.random = random
        keyPool = MaskKeyPool(random: random)
    }

    /// Appends a single-frame text message.
    package func encodeText(_ text: String, masked: Bool, into output: inout [UInt8]) {
        var text = text
        text.withUTF8 { encodeFrame(opcode: .text, payload: UnsafeRawBufferPointer($0), masked: masked, into: &output) }
    }

    /// Appends a single-frame binary message.
    package func encodeBinary(_ bytes: [UInt8], masked: Bool, into output: inout [UInt8]) {
        bytes.withUnsafeBytes { encodeFrame(opcode: .binary, payload: $0, masked: masked, into: &output) }
    }

    /// Appends a ping. `payload` must be at most 125 bytes (a programming error otherwise).
    package func encodePing(_ payload: [UInt8] = [], masked: Bool, into output: inout [UInt8]) {
        encodeControl(.ping, payload, masked: masked, into: &output)
    }

    /// Appends a pong, normally echoing the payload of a received ping (at most 125 bytes).
    package func encodePong(_ payload: [UInt8] = [], masked: Bool, into output: inout [UInt8]) {
        encodeControl(.pong, payload, masked: masked, into: &output)
    }

    /// Appends a close frame. With `code` nil the payload is empty and `reason` is ignored
    /// (§5.5.1: a reason needs a code). A reason longer than 123 UTF-8 bytes is cut at the
    /// last whole character that fits.
    package func encodeClose(code: WebSocketCloseCode?, reason: String = "", masked: Bool, into output: inout [UInt8]) {
        var payload: [UInt8] = []
        if let code {
            payload.reserveCapacity(2 + min(reason.utf8.count, Self.maxControlPayload - 2))
            payload.append(UInt8(code.rawValue >> 8))
            payload.append(UInt8(code.rawValue & 0xFF))
            payload.append(contentsOf: Self.truncatedUTF8(reason, maxBytes: Self.maxControlPayload - 2))
        }
        encodeControl(.close, payload, masked: masked, into: &output)
    }

    /// Appends one frame of any kind; use it to send a message in several fragments
    /// (`fin: false`, then `.continuation` frames). Masks with a fresh random key when `masked`.
    package func encodeFrame(
        fin: Bool = true, opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, masked: Bool,
        into output: inout [UInt8]
    ) {
        var key: UInt32?
        if masked, let keyPool {
            key = keyPool.nextKey()
        } else if masked {
            let bytes = random.bytes(count: 4)
            key = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
        }
        Self.encodeFrame(fin: fin, opcode: opcode, payload: payload, maskKey: key, into: &output)
    }

    /// Appends one frame with an explicit masking key (the key's bytes in wire order, i.e. the
    /// big-endian bytes of `maskKey`), or unmasked when `maskKey` is nil. Deterministic.
    package static func encodeFrame(
        fin: Bool = true, opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, maskKey: UInt32?,
        into output: inout [UInt8]
    ) {
        let length = payload.count
        precondition(
            !opcode.isControl || (fin && length <= maxControlPayload),
            "WebSocketFrameEncoder: control frames carry at most 125 bytes and are never fragmented"
        )
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        output.reserveCapacity(output.count + 14 + length)
        output.append((fin ? 0x80 : 0) | opcode.rawValue)
        if length < 126 {
            output.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            output.append(maskBit | 126)
            output.append(UInt8(length >> 8))
            output.append(UInt8(length & 0xFF))
        } else {
            output.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift)))
            }
        }
        guard let maskKey else {
            output.append(contentsOf: payload)
            return
        }
        let key = (
            UInt8(maskKey >> 24), UInt8(truncatingIfNeeded: maskKey >> 16),
            UInt8(truncatingIfNeeded: maskKey >> 8), UInt8(truncatingIfNeeded: maskKey)
        )
        output.append(key.0)
        output.append(key.1)
        output.append(key.2)
        output.append(key.3)
        guard length > 0 else { return }
        let start = output.count
        output.append(contentsOf: payload)
        output.withUnsafeMutableBytes { raw in
            let region = raw.baseAddress! + start
            WebSocketMasking.apply(key: key, from: region, to: region, count: length)
        }
    }

    private func encodeControl(_ opcode: WebSocketOpcode, _ payload: [UInt8], masked: Bool, into output: inout [UInt8]) {
        payload.withUnsafeBytes { encodeFrame(opcode: opcode, payload: $0, masked: masked, into: &output) }
    }

    /// The UTF-8 bytes of `text`, cut after the last complete character within `maxBytes`.
    static func truncatedUTF8(_ text: String, maxBytes: Int) -> [UInt8] {
        var bytes = Array(text.utf8)
        guard bytes.count > maxBytes else { return bytes }
        var end = maxBytes
        // Step back over continuation bytes so no code point is split.
        while end > 0 && bytes[end] & 0xC0 == 0x80 {
            end -= 1
        }
        bytes.removeSubrange(end...)
        return bytes
    }
}
