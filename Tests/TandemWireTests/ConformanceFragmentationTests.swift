import Testing
import TandemWire

/// RFC 6455 §5.4 fragmentation, modelled on Autobahn TestSuite section 5.
@Suite struct ConformanceFragmentationTests {
    @Test(arguments: bothRoles)
    func fragmentedTextIsReassembledIntoOneMessage(role: WebSocketRole) {
        let input = peerFrame(to: role, fin: false, opcode: 0x1, payload: Array("frag".utf8))
            + peerFrame(to: role, fin: false, opcode: 0x0, payload: Array("men".utf8))
            + peerFrame(to: role, opcode: 0x0, payload: Array("ted".utf8))
        #expect(outcome(role, input).events == [.text("fragmented")])
    }

    @Test(arguments: bothRoles)
    func fragmentedBinaryWithEmptyFragmentsIsReassembled(role: WebSocketRole) {
        let input = peerFrame(to: role, fin: false, opcode: 0x2)
            + peerFrame(to: role, fin: false, opcode: 0x0, payload: [1, 2])
            + peerFrame(to: role, fin: false, opcode: 0x0)
            + peerFrame(to: role, opcode: 0x0, payload: [3])
        #expect(outcome(role, input).events == [.binary([1, 2, 3])])
    }

    @Test(arguments: bothRoles)
    func pingBetweenFragmentsIsAnsweredBeforeTheMessageCompletes(role: WebSocketRole) throws {
        let input = peerFrame(to: role, fin: false, opcode: 0x1, payload: Array("a".utf8))
            + peerFrame(to: role, opcode: 0x9, payload: [9])
            + peerFrame(to: role, opcode: 0xA, payload: [8])
            + peerFrame(to: role, opcode: 0x0, payload: Array("b".utf8))
        let result = outcome(role, input)
        #expect(result.events == [.ping([9]), .pong([8]), .text("ab")])
        #expect(try framesWritten(by: role, result.bytesToWrite) == [WebSocketFrame(opcode: .pong, payload: [9])])
    }

    @Test(arguments: bothRoles)
    func continuationWithoutStartedMessageFailsWith1002(role: WebSocketRole) throws {
        let result = outcome(role, peerFrame(to: role, opcode: 0x0, payload: Array("x".utf8)))
        #expect(result.error == .unexpectedContinuation)
        try expectFailed(result, role: role, code: 1002)
    }

    @Test(arguments: bothRoles)
    func continuationAfterCompletedMessageFailsWith1002(role: WebSocketRole) throws {
        let input = peerFrame(to: role, fin: false, opcode: 0x1, payload: Array("a".utf8))
            + peerFrame(to: role, opcode: 0x0, payload: Array("b".utf8))
            + peerFrame(to: role, opcode: 0x0, payload: Array("c".utf8))
        let result = outcome(role, input)
        #expect(result.events == [.text("ab")])
        #expect(result.error == .unexpectedContinuation)
        try expectFailed(result, role: role, code: 1002)
    }

    @Test(arguments: bothRoles, [UInt8(0x1), 0x2])
    func newDataFrameInsideFragmentedMessageFailsWith1002(role: WebSocketRole, opcode: UInt8) throws {
        let input = peerFrame(to: role, fin: false, opcode: 0x1, payload: Array("a".utf8))
            + peerFrame(to: role, opcode: opcode, payload: Array("b".utf8))
        let result = outcome(role, input)
        #expect(result.error == .expectedContinuation)
        try expectFailed(result, role: role, code: 1002)
    }

    @Test(arguments: bothRoles, [UInt8(0x8), 0x9, 0xA])
    func fragmentedControlFrameFailsWith1002(role: WebSocketRole, opcode: UInt8) throws {
        let result = outcome(role, peerFrame(to: role, fin: false, opcode: opcode, payload: [1]))
        #expect(result.error == .fragmentedControlFrame)
        try expectFailed(result, role: role, code: 1002)
    }

    @Test(arguments: bothRoles)
    func messageSplitIntoOneByteFragmentsIsReassembled(role: WebSocketRole) {
        let text = "Tandem ✓ 同步"
        let bytes = Array(text.utf8)
        let input = oneByteFragments(to: role, bytes)
        #expect(outcome(role, input).events == [.text(text)])
    }
}
