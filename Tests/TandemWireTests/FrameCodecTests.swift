import Testing
@testable import TandemWire
@testable import TandemWireCore

/// The frame encoder and decoder on their own: wire format, masking, round trips and the
/// decoder's incremental behaviour.
@Suite struct FrameCodecTests {
    @Test func unmaskedTextFrameMatchesRFCExample() {
        // RFC 6455 §5.7: a single-frame unmasked text message "Hello".
        var output: [UInt8] = []
        WebSocketFrameEncoder().encodeText("Hello", masked: false, into: &output)
        #expect(output == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    }

    @Test func maskedTextFrameMatchesRFCExample() {
        // RFC 6455 §5.7: masked "Hello" with key 37 fa 21 3d.
        var output: [UInt8] = []
        WebSocketFrameEncoder(random: CyclingRandom()).encodeText("Hello", masked: true, into: &output)
        #expect(output == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    @Test func rfcExampleFramesDecode() throws {
        var server = WebSocketFrameDecoder(role: .server)
        server.append([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        #expect(try server.nextFrame() == WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)))
        var client = WebSocketFrameDecoder(role: .client)
        // Fragmented "Hel" + "lo", then an unmasked ping "Hello".
        client.append([0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F, 0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        #expect(try client.nextFrame() == WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)))
        #expect(try client.nextFrame() == WebSocketFrame(fin: true, opcode: .continuation, payload: Array("lo".utf8)))
        #expect(try client.nextFrame() == WebSocketFrame(opcode: .ping, payload: Array("Hello".utf8)))
        #expect(try client.nextFrame() == nil)
    }

    @Test(arguments: [0, 1, 7, 8, 9, 125, 126, 127, 65535, 65536, 100_000])
    func lengthsUseTheMinimalEncoding(length: Int) {
        var output: [UInt8] = []
        WebSocketFrameEncoder().encodeBinary([UInt8](repeating: 0, count: length), masked: false, into: &output)
        let expectedHeader = length < 126 ? 2 : (length <= 0xFFFF ? 4 : 10)
        #expect(output.count == expectedHeader + length)
        #expect(output == rawFrame(opcode: 0x2, payload: [UInt8](repeating: 0, count: length)))
    }

    @Test func maskingMatchesNaiveXORForEveryLengthAndTail() {
        let key: [UInt8] = [0x9A, 0x01, 0xFF, 0x42]
        for length in 0...70 {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var output: [UInt8] = []
            WebSocketFrameEncoder.encodeFrame(opcode: .binary, payload: UnsafeRawBufferPointer(start: nil, count: 0), maskKey: nil, into: &output)
            output.removeAll()
            payload.withUnsafeBytes { WebSocketFrameEncoder.encodeFrame(opcode: .binary, payload: $0, maskKey: 0x9A01_FF42, into: &output) }
            #expect(output == rawFrame(opcode: 0x2, payload: payload, maskKey: key), "length \(length)")
        }
    }

    @Test(arguments: bothRoles, [0, 3, 8, 13, 125, 126, 4099, 70_000])
    func encodedFramesDecodeBackToTheSamePayload(sender: WebSocketRole, length: Int) throws {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 ^ 0x5A) }
        var output: [UInt8] = []
        WebSocketFrameEncoder(random: SecureRandom()).encodeBinary(payload, masked: sender.masksOutgoingFrames, into: &output)
        #expect(try framesWritten(by: sender, output) == [WebSocketFrame(opcode: .binary, payload: payload)])
    }

    @Test func serverFramesAreIdenticalAcrossEncodingsSoOneEncodingCanBeBroadcast() {
        var first: [UInt8] = []
        var second: [UInt8] = []
        WebSocketFrameEncoder(random: SecureRandom()).encodeText("{\"type\":\"patch\"}", masked: false, into: &first)
        WebSocketFrameEncoder(random: CyclingRandom()).encodeText("{\"type\":\"patch\"}", masked: false, into: &second)
        #expect(first == second)
        #expect(first[1] & 0x80 == 0)
    }

    @Test func clientFramesDrawAFreshKeyFromTheRandomSourcePerFrame() {
        var output: [UInt8] = []
        let encoder = WebSocketFrameEncoder(random: SecureRandom())
        encoder.encodeText("same", masked: true, into: &output)
        let firstFrame = output
        output.removeAll()
        encoder.encodeText("same", masked: true, into: &output)
        #expect(firstFrame[1] & 0x80 != 0)
        #expect(firstFrame != output, "two frames with the same content must use different keys")
    }

    @Test func pooledMaskKeysAreTheSourceBytesInOrderAcrossRefills() {
        let pool = MaskKeyPool(random: CountingRandom(), batch: 3)
        let keys = (0..<7).map { _ in pool.nextKey() }
        // Byte n of the source is n (mod 256): key k is bytes 4k..4k+3, big-endian, with no byte used twice.
        let expected = (0..<7).map { key -> UInt32 in
            (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(UInt8(truncatingIfNeeded: 4 * key + $1)) }
        }
        #expect(keys == expected)
    }

    @Test func pooledClientFramesUseAFreshKeyPerFrameAndDecode() throws {
        let encoder = WebSocketFrameEncoder(pooledKeysFrom: SecureRandom())
        var frames: [[UInt8]] = []
        for _ in 0..<200 {
            var output: [UInt8] = []
            encoder.encodeText("same", masked: true, into: &output)
            frames.append(output)
        }
        #expect(Set(frames.map { Array($0[2..<6]) }).count > 190, "keys must differ from frame to frame")
        var decoder = WebSocketFrameDecoder(role: .server)
        for frame in frames { decoder.append(frame) }
        for _ in frames { #expect(try decoder.nextFrame()?.payload == Array("same".utf8)) }
    }

    @Test func encodingAppendsSoFramesCanBeBatched() throws {
        var output: [UInt8] = [0xAA]
        let encoder = WebSocketFrameEncoder()
        encoder.encodeText("a", masked: false, into: &output)
        encoder.encodePing([1], masked: false, into: &output)
        #expect(output.first == 0xAA)
        #expect(try framesWritten(by: .server, Array(output.dropFirst())) == [
            WebSocketFrame(opcode: .text, payload: [0x61]), WebSocketFrame(opcode: .ping, payload: [1]),
        ])
    }

    @Test func closeReasonLongerThan123BytesIsCutAtACharacterBoundary() throws {
        var output: [UInt8] = []
        // 62 two-byte characters = 124 bytes: the last one must be dropped whole.
        WebSocketFrameEncoder().encodeClose(code: .normalClosure, reason: String(repeating: "é", count: 62), masked: false, into: &output)
        let frame = try #require(try framesWritten(by: .server, output).first)
        #expect(frame.payload.count == 124)
        #expect(frame.payload.count <= 125)
        #expect(UTF8Validator.isValid(Array(frame.payload.dropFirst(2))))
        #expect(try WebSocketMessageAssembler.closeEvent(frame.payload) == .close(code: .normalClosure, reason: String(repeating: "é", count: 61)))
    }

    @Test func closeWithoutCodeHasAnEmptyPayload() throws {
        var output: [UInt8] = []
        WebSocketFrameEncoder().encodeClose(code: nil, reason: "ignored", masked: false, into: &output)
        #expect(output == [0x88, 0x00])
    }

    @Test func fragmentsCanBeEncodedFrameByFrame() throws {
        var output: [UInt8] = []
        let encoder = WebSocketFrameEncoder()
        [UInt8]("ab".utf8).withUnsafeBytes { encoder.encodeFrame(fin: false, opcode: .text, payload: $0, masked: false, into: &output) }
        [UInt8]("c".utf8).withUnsafeBytes { encoder.encodeFrame(fin: true, opcode: .continuation, payload: $0, masked: false, into: &output) }
        var client = WebSocketConnectionStateMachine(role: .client)
        #expect(client.receive(output).events == [.text("abc")])
    }

    @Test func decoderReportsNeedMoreUntilTheFrameIsComplete() throws {
        let frame = rawFrame(opcode: 0x2, payload: [UInt8](repeating: 9, count: 300), maskKey: [1, 2, 3, 4])
        var decoder = WebSocketFrameDecoder(role: .server)
        for byte in frame.dropLast() {
            decoder.append([byte])
            #expect(try decoder.nextFrame() == nil)
        }
        decoder.append([frame.last!])
        #expect(try decoder.nextFrame()?.payload == [UInt8](repeating: 9, count: 300))
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func decoderErrorIsSticky() throws {
        var decoder = WebSocketFrameDecoder(role: .client)
        decoder.append(rawFrame(rsv: 1, opcode: 0x1))
        #expect(throws: WebSocketProtocolError.reservedBitsSet) { try decoder.nextFrame() }
        decoder.append(rawFrame(opcode: 0x1))
        #expect(throws: WebSocketProtocolError.reservedBitsSet) { try decoder.nextFrame() }
    }

    @Test func decoderFailsOnTheFirstHeaderByteWithoutWaitingForTheRest() {
        var decoder = WebSocketFrameDecoder(role: .client)
        decoder.append([0x83])  // reserved opcode, length byte not yet received
        #expect(throws: WebSocketProtocolError.reservedOpcode(3)) { try decoder.nextFrame() }
    }

    @Test func decoderTracksFragmentedMessageState() throws {
        var decoder = WebSocketFrameDecoder(role: .client)
        decoder.append(rawFrame(fin: false, opcode: 0x1, payload: [0x61]))
        _ = try decoder.nextFrame()
        #expect(decoder.isInsideFragmentedMessage)
        decoder.append(rawFrame(opcode: 0x0, payload: [0x62]))
        _ = try decoder.nextFrame()
        #expect(!decoder.isInsideFragmentedMessage)
    }

    @Test func assemblerJoinsFragmentsAndReportsInterleavedControlFrames() throws {
        var assembler = WebSocketMessageAssembler()
        #expect(try assembler.process(WebSocketFrame(fin: false, opcode: .binary, payload: [1])) == nil)
        #expect(try assembler.process(WebSocketFrame(opcode: .pong, payload: [9])) == .pong([9]))
        #expect(try assembler.process(WebSocketFrame(fin: false, opcode: .continuation, payload: [2])) == nil)
        #expect(try assembler.process(WebSocketFrame(fin: true, opcode: .continuation, payload: [3])) == .binary([1, 2, 3]))
        #expect(try assembler.process(WebSocketFrame(opcode: .text, payload: Array("next".utf8))) == .text("next"))
    }

    @Test func assemblerRefusesOutOfSequenceFrames() throws {
        var assembler = WebSocketMessageAssembler()
        #expect(throws: WebSocketProtocolError.unexpectedContinuation) { try assembler.process(WebSocketFrame(opcode: .continuation)) }
        _ = try assembler.process(WebSocketFrame(fin: false, opcode: .text, payload: [0x61]))
        #expect(throws: WebSocketProtocolError.expectedContinuation) { try assembler.process(WebSocketFrame(opcode: .binary)) }
    }

    @Test func decoderAcceptsSlicesAndRawBuffers() throws {
        let frames = rawFrame(opcode: 0x2, payload: [1, 2]) + rawFrame(opcode: 0x2, payload: [3])
        var decoder = WebSocketFrameDecoder(role: .client)
        decoder.append(frames[0..<3])
        Array(frames[3...]).withUnsafeBytes { decoder.append($0) }
        #expect(try decoder.nextFrame()?.payload == [1, 2])
        #expect(try decoder.nextFrame()?.payload == [3])
        #expect(try decoder.nextFrame() == nil)
    }

    @Test func protocolErrorsMapToTheirCloseCodes() {
        #expect(WebSocketProtocolError.invalidUTF8.closeCode == .invalidFramePayloadData)
        #expect(WebSocketProtocolError.invalidCloseReason.closeCode == .invalidFramePayloadData)
        #expect(WebSocketProtocolError.messageTooBig(limit: 1).closeCode == .messageTooBig)
        #expect(WebSocketProtocolError.nonMinimalLength.closeCode == .protocolError)
        #expect(WebSocketProtocolError.reservedOpcode(0xB).description.contains("0xb"))
    }
}
