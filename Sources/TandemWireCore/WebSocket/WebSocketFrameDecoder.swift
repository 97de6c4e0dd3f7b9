/// Incremental RFC 6455 frame decoder: append bytes as they arrive, in chunks of any size,
/// and pull complete frames with their payload unmasked.
///
/// Besides the frame format it enforces everything decidable from frame headers: the masking
/// rule of the role, reserved bits and opcodes, minimal length encoding, control-frame limits
/// and the fragmentation sequence (§5.4). The message size limit is checked from the header
/// (and the sizes of earlier fragments) before any payload byte is buffered, so an oversized
/// message is refused without holding it in memory. Text messages are validated as UTF-8 while
/// their bytes arrive, across fragments and inside a frame that is still incomplete, so an
/// invalid prefix fails at once (§8.1). After the first error every further call throws the
/// same error.
///
/// Cost: one allocation per frame (its payload); unmasking works eight bytes at a time.
package struct WebSocketFrameDecoder: Sendable {
    /// The side this decoder works for; a server expects masked frames, a client unmasked ones.
    package let role: WebSocketRole
    /// The largest data message (sum of its fragments' payloads) accepted, in bytes.
    package let maxMessageSize: Int

    private struct Header {
        var fin: Bool
        var opcode: WebSocketOpcode
        var maskKey: (UInt8, UInt8, UInt8, UInt8)?
        var payloadLength: Int
        /// True for frames of a text message, whose payload is validated as it arrives.
        var isText: Bool
    }

    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var pending: Header?
    private var messageInProgress = false
    private var messageLength = 0
    private var messageIsText = false
    private var validator = UTF8Validator()
    /// Payload bytes of the pending text frame already unmasked in place and validated.
    private var validatedLength = 0
    private var failure: WebSocketProtocolError?

    /// The largest data message taken when no limit is given: 64 KiB, the sync protocol's default (a
    /// server's `ServerConfiguration.maxMessageBytes` starts from it).
    package static let defaultMaxMessageSize = 64 * 1024

    /// Creates a decoder for `role` that refuses data messages above `maxMessageSize` bytes.
    package init(role: WebSocketRole, maxMessageSize: Int = defaultMaxMessageSize) {
        precondition(maxMessageSize >= 0, "WebSocketFrameDecoder: maxMessageSize must not be negative")
        self.role = role
        self.maxMessageSize = maxMessageSize
    }

    /// Bytes received but not yet returned as part of a frame.
    package var bufferedByteCount: Int { buffer.count - readIndex }

    /// True while a fragmented data message has started and its final fragment has not
    /// been decoded yet.
    package var isInsideFragmentedMessage: Bool { messageInProgress }

    /// Appends received bytes.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compactIfUseful()
        buffer.append(contentsOf: bytes)
    }

    /// Appends received bytes.
    package mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Appends received bytes.
    package mutating func append(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Returns the next complete frame, or nil when more bytes are needed.
    ///
    /// Frames come out in wire order. Throws as soon as the bytes seen so far break the
    /// protocol, even if the rest of the frame has not arrived.
    package mutating func nextFrame() throws(WebSocketProtocolError) -> WebSocketFrame? {
        if let failure { throw failure }
        do {
            return try decodeNext()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func decodeNext() throws(WebSocketProtocolError) -> WebSocketFrame? {
        if pending == nil {
            guard let header = try parseHeader() else { return nil }
            pending = header
            validatedLength = 0
        }
        guard let header = pending else { return nil }
        let length = header.payloadLength
        if header.isText {
            try validateArrivedText(of: header)
            guard bufferedByteCount >= length else { return nil }
            if header.fin && !validator.isComplete { throw .invalidUTF8 }
        }
        guard bufferedByteCount >= length else { return nil }
        let start = readIndex
        let payload: [UInt8]
        if length == 0 {
            payload = []
        } else {
            // Text payloads were unmasked in place while being validated.
            let key = header.isText ? nil : header.maskKey
            payload = [UInt8](unsafeUninitializedCapacity: length) { output, initialized in
                buffer.withUnsafeBytes { raw in
                    let source = raw.baseAddress! + start
                    let destination = UnsafeMutableRawPointer(output.baseAddress!)
                    if let key {
                        WebSocketMasking.apply(key: key, from: source, to: destination, count: length)
                    } else {
                        destination.copyMemory(from: source, byteCount: length)
                    }
                }
                initialized = length
            }
        }
        readIndex += length
        pending = nil
        if readIndex == buffer.count {
            // Release a buffer grown by one big message; keep an ordinary one for reuse.
            if buffer.capacity > 1 << 20 {
                buffer = []
            } else {
                buffer.removeAll(keepingCapacity: true)
            }
            readIndex = 0
        }
        return WebSocketFrame(fin: header.fin, opcode: header.opcode, payload: payload)
    }

    /// Unmasks (in the buffer) and validates the text payload bytes that arrived since the
    /// last call, so that an invalid prefix fails before the rest of the frame is received.
    private mutating func validateArrivedText(of header: Header) throws(WebSocketProtocolError) {
        let arrived = min(bufferedByteCount, header.payloadLength)
        guard arrived > validatedLength else { return }
        let from = readIndex + validatedLength
        let count = arrived - validatedLength
        let phase = validatedLength
        var validator = self.validator
        let valid = buffer.withUnsafeMutableBytes { raw in
            let region = raw.baseAddress! + from
            if let key = header.maskKey {
                WebSocketMasking.apply(key: WebSocketMasking.rotated(key, by: phase), from: region, to: region, count: count)
            }
            return validator.validate(UnsafeRawBufferPointer(start: region, count: count))
        }
        self.validator = validator
        validatedLength = arrived
        guard valid else { throw .invalidUTF8 }
    }

    private mutating func compactIfUseful() {
        guard readIndex > 0, readIndex >= buffer.count - readIndex else { return }
        buffer.removeSubrange(0..<readIndex)
        readIndex = 0
    }

    /// Parses and validates the header at `readIndex`; consumes it only once complete.
    private mutating func parseHeader() throws(WebSocketProtocolError) -> Header? {
        let available = buffer.count - readIndex
        guard available >= 1 else { return nil }
        // Everything decidable from the first byte fails before the second arrives.
        let first = buffer[readIndex]
        guard first & 0x70 == 0 else { throw .reservedBitsSet }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw .reservedOpcode(first & 0x0F)
        }
        let fin = first & 0x80 != 0
        if opcode.isControl {
            guard fin else { throw .fragmentedControlFrame }
        } else if opcode == .continuation {
            guard messageInProgress else { throw .unexpectedContinuation }
        } else {
            guard !messageInProgress else { throw .expectedContinuation }
        }

        guard available >= 2 else { return nil }
        let second = buffer[readIndex + 1]
        let masked = second & 0x80 != 0
        switch role {
        case .server where !masked: throw .unmaskedClientFrame
        case .client where masked: throw .maskedServerFrame
        default: break
        }
        let shortLength = Int(second & 0x7F)
        if opcode.isControl {
            guard shortLength <= 125 else { throw .controlFrameTooLong }
        }

        var headerLength = 2
        var length = shortLength
        if shortLength == 126 {
            guard available >= 4 else { return nil }
            length = Int(buffer[readIndex + 2]) << 8 | Int(buffer[readIndex + 3])
            guard length >= 126 else { throw .nonMinimalLength }
            headerLength = 4
        } else if shortLength == 127 {
            guard available >= 10 else { return nil }
            var value: UInt64 = 0
            for offset in 2..<10 {
                value = value << 8 | UInt64(buffer[readIndex + offset])
            }
            guard value & (1 << 63) == 0 else { throw .invalidLength }
            guard value > 0xFFFF else { throw .nonMinimalLength }
            length = Int(value)
            headerLength = 10
        }
        if !opcode.isControl {
            let earlier = opcode == .continuation ? messageLength : 0
            guard length <= maxMessageSize - earlier else { throw .messageTooBig(limit: maxMessageSize) }
        }
        var maskKey: (UInt8, UInt8, UInt8, UInt8)?
        if masked {
            guard available >= headerLength + 4 else { return nil }
            let at = readIndex + headerLength
            maskKey = (buffer[at], buffer[at + 1], buffer[at + 2], buffer[at + 3])
            headerLength += 4
        }

        readIndex += headerLength
        if !opcode.isControl {
            messageLength = fin ? 0 : (opcode == .continuation ? messageLength + length : length)
            messageInProgress = !fin
            if opcode != .continuation {
                messageIsText = opcode == .text
                validator.reset()
            }
        }
        let isText = !opcode.isControl && messageIsText
        return Header(fin: fin, opcode: opcode, maskKey: maskKey, payloadLength: length, isText: isText)
    }
}
