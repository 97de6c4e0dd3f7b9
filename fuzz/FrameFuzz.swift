// libFuzzer target for Tandem's WebSocket protocol layer (frame decoder, message assembler,
// connection state machine, frame encoder). Built by fuzz/run.sh together with the TandemWire
// sources it exercises.
//
// Input layout: byte 0 selects the role (bit 0) and the message size limit (bits 1–2);
// byte 1 is the chunk size the stream is cut into; the rest is the byte stream from the peer.
// Besides memory safety (AddressSanitizer) it checks invariants and traps on violation:
// - the outcome does not depend on how the stream is split;
// - a failed connection always asks to close the socket and carries a close frame;
// - every delivered message re-encodes and decodes to itself.

@_cdecl("LLVMFuzzerTestOneInput")
public func frameFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let role: WebSocketRole = data[0] & 1 == 0 ? .server : .client
    let limits = [64 * 1024, 16, 200, 1 << 20]
    let limit = limits[Int(data[0] >> 1) & 3]
    let chunk = max(1, Int(data[1]))
    let stream = Array(UnsafeBufferPointer(start: data + 2, count: size - 2))

    var whole = WebSocketConnectionStateMachine(role: role, maxMessageSize: limit, encoder: WebSocketFrameEncoder(random: FixedKey()))
    let wholeResult = whole.receive(stream)

    var pieces = WebSocketConnectionStateMachine(role: role, maxMessageSize: limit, encoder: WebSocketFrameEncoder(random: FixedKey()))
    var split = WebSocketReceiveResult()
    var offset = 0
    while offset < stream.count {
        let part = pieces.receive(Array(stream[offset..<min(offset + chunk, stream.count)]))
        split.events += part.events
        split.bytesToWrite += part.bytesToWrite
        split.closeSocket = split.closeSocket || part.closeSocket
        split.error = split.error ?? part.error
        offset += chunk
    }
    precondition(wholeResult == split, "outcome depends on how the stream is split")
    precondition(whole.state == pieces.state, "final state depends on how the stream is split")

    if wholeResult.error != nil {
        precondition(wholeResult.closeSocket, "a failed connection must close the socket")
        precondition(!wholeResult.bytesToWrite.isEmpty, "a failed connection must send a close frame")
    }

    for event in wholeResult.events {
        var encoded: [UInt8] = []
        let encoder = WebSocketFrameEncoder(random: FixedKey())
        switch event {
        case .text(let text): encoder.encodeText(text, masked: role == .server, into: &encoded)
        case .binary(let bytes): encoder.encodeBinary(bytes, masked: role == .server, into: &encoded)
        default: continue
        }
        var decoder = WebSocketFrameDecoder(role: role, maxMessageSize: 1 << 21)
        var assembler = WebSocketMessageAssembler()
        decoder.append(encoded)
        do {
            let frame = try decoder.nextFrame()
            precondition(frame != nil, "an encoded message must decode completely")
            let decoded = try assembler.process(frame!)
            precondition(decoded == event, "a message must survive re-encoding")
        } catch {
            preconditionFailure("re-encoded message failed to decode: \(error)")
        }
    }
    return 0
}

/// A fixed masking key keeps the bytes written by both machines comparable.
struct FixedKey: RandomByteSource {
    func bytes(count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: 0x5A &+ $0 &* 17) }
    }
}
