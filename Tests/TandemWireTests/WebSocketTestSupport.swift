import Synchronization
import Testing
import TandemWire

/// A deterministic "random" source: returns bytes from a fixed cycle, so masked output is
/// reproducible. The cycle is long enough that two consecutive 4-byte keys differ.
struct CyclingRandom: RandomByteSource {
    var cycle: [UInt8] = [0x37, 0xFA, 0x21, 0x3D, 0x8C, 0x01, 0xE2, 0x55, 0x9B]

    func bytes(count: Int) -> [UInt8] {
        (0..<count).map { cycle[$0 % cycle.count] }
    }
}

/// A deterministic source whose n-th byte overall is n mod 256, however the bytes are requested.
final class CountingRandom: RandomByteSource {
    private let next = Mutex(0)

    func bytes(count: Int) -> [UInt8] {
        let first = next.withLock { next in
            defer { next += count }
            return next
        }
        return (0..<count).map { UInt8(truncatingIfNeeded: first + $0) }
    }
}

/// How a test frame writes its payload length; the non-minimal forms are protocol errors.
enum LengthEncoding {
    case minimal, forced16, forced64
}

/// Builds a frame byte by byte from RFC 6455 §5.2, independently of the encoder under test,
/// so that it can also produce invalid frames.
func rawFrame(
    fin: Bool = true, rsv: UInt8 = 0, opcode: UInt8, payload: [UInt8] = [],
    maskKey: [UInt8]? = nil, length: LengthEncoding = .minimal, declaredLength: UInt64? = nil
) -> [UInt8] {
    var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv << 4) | opcode]
    let count = declaredLength ?? UInt64(payload.count)
    let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
    switch length {
    case .minimal where count < 126:
        bytes.append(maskBit | UInt8(count))
    case .minimal where count <= 0xFFFF, .forced16:
        bytes.append(maskBit | 126)
        bytes += [UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
    default:
        bytes.append(maskBit | 127)
        bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: count >> (UInt64($0) * 8)) }
    }
    if let maskKey {
        bytes += maskKey
        bytes += payload.enumerated().map { $0.element ^ maskKey[$0.offset % 4] }
    } else {
        bytes += payload
    }
    return bytes
}

/// A frame as the peer of `role` sends it: masked when the peer is a client.
func peerFrame(
    to role: WebSocketRole, fin: Bool = true, rsv: UInt8 = 0, opcode: UInt8, payload: [UInt8] = [],
    length: LengthEncoding = .minimal
) -> [UInt8] {
    rawFrame(fin: fin, rsv: rsv, opcode: opcode, payload: payload, maskKey: role == .server ? [0xA1, 0x0B, 0x5C, 0xE7] : nil, length: length)
}

/// A close payload: code in network order followed by the reason bytes.
func closePayload(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] {
    [UInt8(code >> 8), UInt8(code & 0xFF)] + reason
}

/// Combines the results of several `receive` calls into one.
func merged(_ results: [WebSocketReceiveResult]) -> WebSocketReceiveResult {
    var total = WebSocketReceiveResult()
    for result in results {
        total.events += result.events
        total.bytesToWrite += result.bytesToWrite
        total.closeSocket = total.closeSocket || result.closeSocket
        total.error = total.error ?? result.error
    }
    return total
}

/// Feeds `input` to a fresh state machine in one chunk and, separately, one byte at a time,
/// and returns both outcomes (which must agree: decoding is independent of split points).
func receiveBothWays(
    role: WebSocketRole, maxMessageSize: Int = 64 * 1024, _ input: [UInt8]
) -> (whole: WebSocketReceiveResult, bytewise: WebSocketReceiveResult) {
    var whole = WebSocketConnectionStateMachine(role: role, maxMessageSize: maxMessageSize, encoder: WebSocketFrameEncoder(random: CyclingRandom()))
    let wholeResult = whole.receive(input)
    var bytewise = WebSocketConnectionStateMachine(role: role, maxMessageSize: maxMessageSize, encoder: WebSocketFrameEncoder(random: CyclingRandom()))
    let bytewiseResult = merged(input.map { bytewise.receive([$0]) })
    return (wholeResult, bytewiseResult)
}

/// Decodes frames a state machine wrote (to check pongs and close replies): the writer of
/// `role` is the peer of a decoder with the opposite role.
func framesWritten(by role: WebSocketRole, _ bytes: [UInt8]) throws -> [WebSocketFrame] {
    var decoder = WebSocketFrameDecoder(role: role == .server ? .client : .server, maxMessageSize: 1 << 24)
    decoder.append(bytes)
    var frames: [WebSocketFrame] = []
    while let frame = try decoder.nextFrame() {
        frames.append(frame)
    }
    #expect(decoder.bufferedByteCount == 0, "trailing partial frame in written bytes")
    return frames
}

let bothRoles: [WebSocketRole] = [.server, .client]

/// The outcome of feeding `input` to a fresh state machine of `role`, after checking that
/// one-chunk and byte-at-a-time feeding agree.
func outcome(
    _ role: WebSocketRole, _ input: [UInt8], maxMessageSize: Int = 64 * 1024,
    sourceLocation: SourceLocation = #_sourceLocation
) -> WebSocketReceiveResult {
    let (whole, bytewise) = receiveBothWays(role: role, maxMessageSize: maxMessageSize, input)
    #expect(whole == bytewise, "result depends on how the input was split", sourceLocation: sourceLocation)
    return whole
}

/// Checks that the connection was failed with `code`: the error, a close frame carrying the
/// code as the last thing written, and the decision to close the socket.
func expectFailed(
    _ result: WebSocketReceiveResult, role: WebSocketRole, code: UInt16,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    #expect(result.error?.closeCode.rawValue == code, sourceLocation: sourceLocation)
    #expect(result.closeSocket, sourceLocation: sourceLocation)
    let frames = try framesWritten(by: role, result.bytesToWrite)
    let last = try #require(frames.last, sourceLocation: sourceLocation)
    #expect(last.opcode == .close, sourceLocation: sourceLocation)
    #expect(Array(last.payload.prefix(2)) == closePayload(code), sourceLocation: sourceLocation)
}

/// A text message sent as one fragment per byte, as the peer of `role` sends it.
func oneByteFragments(to role: WebSocketRole, _ bytes: [UInt8]) -> [UInt8] {
    var input: [UInt8] = []
    for (index, byte) in bytes.enumerated() {
        input += peerFrame(to: role, fin: index == bytes.count - 1, opcode: index == 0 ? 0x1 : 0x0, payload: [byte])
    }
    return input
}
