/// Turns a validated frame sequence (from ``WebSocketFrameDecoder``) into ``WebSocketEvent``s:
/// joins fragments into messages, validates text incrementally and parses close payloads.
///
/// Text is validated fragment by fragment, so a message whose prefix is already invalid
/// UTF-8 fails at that fragment without waiting for the rest. Control frames may arrive between
/// the fragments of a message and are reported at once.
public struct WebSocketMessageAssembler: Sendable {
    private var messageOpcode: WebSocketOpcode?
    private var fragments: [UInt8] = []
    private var validator = UTF8Validator()

    /// Creates an assembler with no message in progress.
    public init() {}

    /// Feeds the next frame; returns the event it completes, or nil for a non-final fragment.
    public mutating func process(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> WebSocketEvent? {
        switch frame.opcode {
        case .text, .binary:
            guard messageOpcode == nil else { throw .expectedContinuation }
            if frame.fin {
                return try Self.message(frame.opcode, frame.payload)
            }
            messageOpcode = frame.opcode
            fragments = frame.payload
            if frame.opcode == .text {
                validator.reset()
                guard validator.validate(frame.payload) else { throw .invalidUTF8 }
            }
            return nil
        case .continuation:
            guard let opcode = messageOpcode else { throw .unexpectedContinuation }
            fragments.append(contentsOf: frame.payload)
            if opcode == .text {
                guard validator.validate(frame.payload) else { throw .invalidUTF8 }
            }
            guard frame.fin else { return nil }
            if opcode == .text {
                guard validator.isComplete else { throw .invalidUTF8 }
            }
            let bytes = fragments
            fragments = []
            messageOpcode = nil
            return opcode == .text ? .text(String(decoding: bytes, as: UTF8.self)) : .binary(bytes)
        case .ping:
            return .ping(frame.payload)
        case .pong:
            return .pong(frame.payload)
        case .close:
            return try Self.closeEvent(frame.payload)
        }
    }

    private static func message(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketEvent {
        guard opcode == .text else { return .binary(payload) }
        guard UTF8Validator.isValid(payload) else { throw .invalidUTF8 }
        return .text(String(decoding: payload, as: UTF8.self))
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
