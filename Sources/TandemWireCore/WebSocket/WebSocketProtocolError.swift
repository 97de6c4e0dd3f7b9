/// A violation of RFC 6455 by the peer (or a limit it exceeded). Each case knows the close
/// code the connection is failed with (§7.1.7).
package enum WebSocketProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// RSV1–3 set without a negotiated extension.
    case reservedBitsSet
    /// Opcode 3–7 or B–F.
    case reservedOpcode(UInt8)
    /// A server received a frame without a mask (clients must mask, §5.1).
    case unmaskedClientFrame
    /// A client received a masked frame (servers must not mask, §5.1).
    case maskedServerFrame
    /// The payload length used more bytes than necessary (§5.2 requires the minimal form).
    case nonMinimalLength
    /// A 64-bit payload length with its most significant bit set.
    case invalidLength
    /// A control frame with a payload longer than 125 bytes.
    case controlFrameTooLong
    /// A control frame without FIN.
    case fragmentedControlFrame
    /// A continuation frame with no fragmented message in progress.
    case unexpectedContinuation
    /// A new text/binary frame while a fragmented message is still in progress.
    case expectedContinuation
    /// A message (or the sum of its fragments) larger than the configured limit.
    case messageTooBig(limit: Int)
    /// A text message that is not valid UTF-8.
    case invalidUTF8
    /// A close frame whose payload is exactly one byte.
    case invalidClosePayload
    /// A close frame with a code that must not appear on the wire.
    case invalidCloseCode(UInt16)
    /// A close frame whose reason is not valid UTF-8.
    case invalidCloseReason

    /// The close code to send when failing the connection for this error.
    package var closeCode: WebSocketCloseCode {
        switch self {
        case .invalidUTF8, .invalidCloseReason: .invalidFramePayloadData
        case .messageTooBig: .messageTooBig
        default: .protocolError
        }
    }

    /// What went wrong, phrased for a log line.
    package var description: String {
        switch self {
        case .reservedBitsSet: "frame has reserved bits set but no extension was negotiated"
        case .reservedOpcode(let code): "frame uses reserved opcode 0x\(String(code, radix: 16))"
        case .unmaskedClientFrame: "client frame is not masked"
        case .maskedServerFrame: "server frame is masked"
        case .nonMinimalLength: "payload length is not encoded in the minimal number of bytes"
        case .invalidLength: "64-bit payload length has its most significant bit set"
        case .controlFrameTooLong: "control frame payload is longer than 125 bytes"
        case .fragmentedControlFrame: "control frame is fragmented"
        case .unexpectedContinuation: "continuation frame without a message in progress"
        case .expectedContinuation: "new data frame while a fragmented message is in progress"
        case .messageTooBig(let limit): "message exceeds the limit of \(limit) bytes"
        case .invalidUTF8: "text message is not valid UTF-8"
        case .invalidClosePayload: "close frame payload of 1 byte (a code needs 2)"
        case .invalidCloseCode(let code): "close code \(code) is not allowed on the wire"
        case .invalidCloseReason: "close reason is not valid UTF-8"
        }
    }
}
