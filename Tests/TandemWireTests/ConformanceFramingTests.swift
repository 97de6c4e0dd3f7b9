import Testing
import TandemWire

/// RFC 6455 framing, ping/pong, reserved bits and opcodes, modelled on Autobahn TestSuite
/// sections 1–4. Every case runs for both roles and for one-chunk and byte-wise feeding.
@Suite struct ConformanceFramingTests {
    @Test(arguments: bothRoles, [0, 1, 125, 126, 127, 65535, 65536])
    func textMessageOfEveryLengthEncodingIsDelivered(role: WebSocketRole, length: Int) {
        let text = String(repeating: "*", count: length)
        let result = outcome(role, peerFrame(to: role, opcode: 0x1, payload: Array(text.utf8)), maxMessageSize: 1 << 20)
        #expect(result.events == [.text(text)])
        #expect(result.error == nil && !result.closeSocket && result.bytesToWrite.isEmpty)
    }

    @Test(arguments: bothRoles, [0, 125, 126, 65535, 65536])
    func binaryMessageOfEveryLengthEncodingIsDelivered(role: WebSocketRole, length: Int) {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let result = outcome(role, peerFrame(to: role, opcode: 0x2, payload: payload), maxMessageSize: 1 << 20)
        #expect(result.events == [.binary(payload)])
    }

    @Test(arguments: bothRoles)
    func severalMessagesInOneChunkAreDeliveredInOrder(role: WebSocketRole) {
        let input = peerFrame(to: role, opcode: 0x1, payload: Array("one".utf8))
            + peerFrame(to: role, opcode: 0x2, payload: [1, 2])
            + peerFrame(to: role, opcode: 0x1, payload: Array("three".utf8))
        #expect(outcome(role, input).events == [.text("one"), .binary([1, 2]), .text("three")])
    }

    @Test(arguments: bothRoles, [0, 10, 125])
    func pingIsAnsweredWithPongCarryingTheSamePayload(role: WebSocketRole, length: Int) throws {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: 0xFE &- $0) }
        let result = outcome(role, peerFrame(to: role, opcode: 0x9, payload: payload))
        #expect(result.events == [.ping(payload)])
        #expect(try framesWritten(by: role, result.bytesToWrite) == [WebSocketFrame(opcode: .pong, payload: payload)])
        #expect(!result.closeSocket)
    }

    @Test(arguments: bothRoles)
    func tenPingsAreAnsweredWithTenPongsInOrder(role: WebSocketRole) throws {
        let input = (0..<10).flatMap { peerFrame(to: role, opcode: 0x9, payload: [UInt8($0)]) }
        let result = outcome(role, input)
        let pongs = try framesWritten(by: role, result.bytesToWrite)
        #expect(pongs == (0..<10).map { WebSocketFrame(opcode: .pong, payload: [UInt8($0)]) })
    }

    @Test(arguments: bothRoles)
    func unsolicitedPongIsDeliveredWithoutReply(role: WebSocketRole) {
        let result = outcome(role, peerFrame(to: role, opcode: 0xA, payload: Array("hb".utf8)))
        #expect(result.events == [.pong(Array("hb".utf8))])
        #expect(result.bytesToWrite.isEmpty && !result.closeSocket)
    }

    @Test(arguments: bothRoles, [126, 200])
    func controlFrameLongerThan125BytesFailsWith1002(role: WebSocketRole, length: Int) throws {
        let result = outcome(role, peerFrame(to: role, opcode: 0x9, payload: [UInt8](repeating: 7, count: length)))
        #expect(result.error == .controlFrameTooLong)
        #expect(result.events.isEmpty)
        try expectFailed(result, role: role, code: 1002)
    }

    @Test(arguments: bothRoles, [1, 2, 4, 7])
    func reservedBitsFailWith1002AfterEarlierMessagesAreDelivered(role: WebSocketRole, rsv: UInt8) throws {
        let input = peerFrame(to: role, opcode: 0x1, payload: Array("before".utf8))
            + peerFrame(to: role, rsv: rsv, opcode: 0x1, payload: Array("bad".utf8))
            + peerFrame(to: role, opcode: 0x9)
        let result = outcome(role, input)
        #expect(result.events == [.text("before")])
        #expect(result.error == .reservedBitsSet)
        try expectFailed(result, role: role, code: 1002)
    }

    @Test(arguments: bothRoles, [UInt8(3), 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF])
    func reservedOpcodeFailsWith1002(role: WebSocketRole, opcode: UInt8) throws {
        let result = outcome(role, peerFrame(to: role, opcode: opcode, payload: [1]))
        #expect(result.error == .reservedOpcode(opcode))
        try expectFailed(result, role: role, code: 1002)
    }

    @Test func serverFailsUnmaskedClientFrameWith1002() throws {
        let result = outcome(.server, rawFrame(opcode: 0x1, payload: Array("hi".utf8)))
        #expect(result.error == .unmaskedClientFrame)
        #expect(result.events.isEmpty)
        try expectFailed(result, role: .server, code: 1002)
    }

    @Test func clientFailsMaskedServerFrameWith1002() throws {
        let result = outcome(.client, rawFrame(opcode: 0x1, payload: Array("hi".utf8), maskKey: [1, 2, 3, 4]))
        #expect(result.error == .maskedServerFrame)
        try expectFailed(result, role: .client, code: 1002)
    }

    @Test(arguments: bothRoles, [(LengthEncoding.forced16, 5), (.forced16, 125), (.forced64, 0), (.forced64, 65535)])
    func nonMinimalLengthEncodingFailsWith1002(role: WebSocketRole, form: (LengthEncoding, Int)) throws {
        let result = outcome(role, peerFrame(to: role, opcode: 0x2, payload: [UInt8](repeating: 1, count: form.1), length: form.0))
        #expect(result.error == .nonMinimalLength)
        try expectFailed(result, role: role, code: 1002)
    }

    @Test(arguments: bothRoles)
    func lengthWithMostSignificantBitSetFailsWith1002(role: WebSocketRole) throws {
        let header = Array(rawFrame(opcode: 0x2, maskKey: role == .server ? [1, 2, 3, 4] : nil, declaredLength: 1 << 63).prefix(10))
        let result = outcome(role, header)
        #expect(result.error == .invalidLength)
        try expectFailed(result, role: role, code: 1002)
    }

    @Test(arguments: bothRoles)
    func failureClosesWithTheRolesMasking(role: WebSocketRole) throws {
        let result = outcome(role, peerFrame(to: role, opcode: 0x3))
        // A server's close frame is unmasked (second byte < 0x80), a client's masked.
        let second = try #require(result.bytesToWrite.dropFirst().first)
        #expect((second & 0x80 != 0) == (role == .client))
    }

    @Test(arguments: bothRoles)
    func bytesAfterAFailureAreIgnored(role: WebSocketRole) {
        var machine = WebSocketConnectionStateMachine(role: role)
        let failed = machine.receive(peerFrame(to: role, opcode: 0x3))
        #expect(failed.closeSocket)
        let later = machine.receive(peerFrame(to: role, opcode: 0x1, payload: Array("late".utf8)))
        #expect(later == WebSocketReceiveResult())
        #expect(machine.state == .closed)
    }
}
