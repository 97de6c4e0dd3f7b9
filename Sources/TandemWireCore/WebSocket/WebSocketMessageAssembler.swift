/// Turns the frame sequence of a ``WebSocketFrameDecoder`` into ``WebSocketEvent``s: joins
/// fragments into messages and parses (and validates) close payloads.
///
/// It relies on the decoder for the fragmentation rules and for the UTF-8 validity of text
/// messages, which the decoder checks while the bytes arrive. Control frames may arrive between
/// the fragments of a message and are reported at once.
package struct WebSocketMessageAssembler: Sendable {
    private var messageOpcode: WebSocketOpcode?
    private var fragments: [UInt8] = []
    private let textAsBytes: Bool

    /// Creates an assembler with no message in progress. With `textAsBytes`, text messages come
    /// out as ``WebSocketEvent/textBytes(_:)`` (validated UTF-8 bytes) instead of `String`s.
    package init(textAsBytes: Bool = false) {
        self.textAsBytes = textAsBytes
    }

    /// Feeds the next frame; returns the event it completes, or nil for a non-final fragment.
    package mutating func process(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> WebSocketEvent? {
        switch frame.opcode {
        case .text, .binary:
            guard messageOpcode == nil else { throw .expectedContinuation }
            if frame.fin {
                return message(frame.opcode, frame.payload)
            }
            messageOpcode = frame.opcode
            fragments = frame.payload
            return nil
        case .continuation:
            guard let opcode = messageOpcode else { throw .unexpectedContinuation }
            fragments.append(contentsOf: frame.payload)
            guard frame.fin else { return nil }
            let bytes = fragments
            fragments = []
            messageOpcode = nil
            return message(opcode, bytes)
        case .ping:
            return .ping(frame.payload)
        case .pong:
            return .pong(frame.payload)
        case .close:
            return try Self.closeEvent(frame.payload)
        }
    }

    private func message(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> WebSocketEvent {
        guard opcode == .text else { return .binary(payload) }
        return textAsBytes ? .textBytes(payload) : .text(String(decoding: payload, as: UTF8.self))
    }

    /// Parses a close payload (§5.5.1): empty, or a valid 2-byte code plus a UTF-8 reason.
    static func closeEvent(_ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketEvent {
        if payload.isEmpty { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { throw .invalidClosePayload }
        let code = WebSocketCloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isValidOnWire else { throw .invalidCloseCode(code.rawValue) }
        let reason = Array(payload[2...])
        guard UTF8Validator.isValid(reason) else { throw .invalidCloseReason }
        return .close(code: code, reason: String(decoding: reason, as: UTF8.self))
    }
}
