import Testing
import TandemWire

/// The close handshake (RFC 6455 §5.5.1, §7), modelled on Autobahn TestSuite section 7.
@Suite struct ConformanceCloseTests {
    @Test(arguments: bothRoles)
    func peerCloseWithCodeAndReasonIsEchoedAndClosesTheSocket(role: WebSocketRole) throws {
        let result = outcome(role, peerFrame(to: role, opcode: 0x8, payload: closePayload(1000, Array("bye".utf8))))
        #expect(result.events == [.close(code: .normalClosure, reason: "bye")])
        #expect(try framesWritten(by: role, result.bytesToWrite) == [WebSocketFrame(opcode: .close, payload: closePayload(1000))])
        #expect(result.closeSocket && result.error == nil)
    }

    @Test(arguments: bothRoles)
    func emptyCloseIsAnsweredWithEmptyClose(role: WebSocketRole) throws {
        let result = outcome(role, peerFrame(to: role, opcode: 0x8))
        #expect(result.events == [.close(code: nil, reason: "")])
        #expect(try framesWritten(by: role, result.bytesToWrite) == [WebSocketFrame(opcode: .close)])
        #expect(result.closeSocket)
    }

    @Test(arguments: bothRoles)
    func closePayloadOfOneByteFailsWith1002(role: WebSocketRole) throws {
        let result = outcome(role, peerFrame(to: role, opcode: 0x8, payload: [0x03]))
        #expect(result.error == .invalidClosePayload)
        try expectFailed(result, role: role, code: 1002)
    }

    @Test(arguments: bothRoles, [UInt16(0), 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535])
    func invalidCloseCodeFailsWith1002(role: WebSocketRole, code: UInt16) throws {
        let result = outcome(role, peerFrame(to: role, opcode: 0x8, payload: closePayload(code)))
        #expect(result.error == .invalidCloseCode(code))
        try expectFailed(result, role: role, code: 1002)
    }

    @Test(arguments: bothRoles, [UInt16(1000), 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999])
    func validCloseCodeIsEchoed(role: WebSocketRole, code: UInt16) throws {
        let result = outcome(role, peerFrame(to: role, opcode: 0x8, payload: closePayload(code)))
        #expect(result.events == [.close(code: WebSocketCloseCode(code), reason: "")])
        #expect(try framesWritten(by: role, result.bytesToWrite) == [WebSocketFrame(opcode: .close, payload: closePayload(code))])
    }

    @Test(arguments: bothRoles)
    func closeReasonWithInvalidUTF8FailsWith1007(role: WebSocketRole) throws {
        let result = outcome(role, peerFrame(to: role, opcode: 0x8, payload: closePayload(1000, [0x61, 0xED, 0xA0, 0x80])))
        #expect(result.error == .invalidCloseReason)
        try expectFailed(result, role: role, code: 1007)
    }

    @Test(arguments: bothRoles)
    func closeWithMaximalReasonIsAccepted(role: WebSocketRole) {
        let reason = String(repeating: "r", count: 123)
        let result = outcome(role, peerFrame(to: role, opcode: 0x8, payload: closePayload(1001, Array(reason.utf8))))
        #expect(result.events == [.close(code: .goingAway, reason: reason)])
    }

    @Test(arguments: bothRoles)
    func framesAfterPeerCloseAreIgnored(role: WebSocketRole) throws {
        let input = peerFrame(to: role, opcode: 0x8, payload: closePayload(1000))
            + peerFrame(to: role, opcode: 0x1, payload: Array("late".utf8))
            + peerFrame(to: role, opcode: 0x9)
        let result = outcome(role, input)
        #expect(result.events == [.close(code: .normalClosure, reason: "")])
        #expect(try framesWritten(by: role, result.bytesToWrite).count == 1)
    }

    @Test(arguments: bothRoles)
    func locallyInitiatedCloseCompletesWhenThePeerReplies(role: WebSocketRole) throws {
        var machine = WebSocketConnectionStateMachine(role: role)
        var output: [UInt8] = []
        let started = machine.close(code: .goingAway, reason: "shutdown", into: &output)
        #expect(started)
        #expect(try framesWritten(by: role, output) == [WebSocketFrame(opcode: .close, payload: closePayload(1001, Array("shutdown".utf8)))])
        #expect(machine.state == .closeSent)
        let again = machine.close(into: &output)
        #expect(!again, "a second close frame must not be sent")

        let reply = machine.receive(peerFrame(to: role, opcode: 0x8, payload: closePayload(1001)))
        #expect(reply.events == [.close(code: .goingAway, reason: "")])
        #expect(reply.bytesToWrite.isEmpty, "the peer's reply is not echoed again")
        #expect(reply.closeSocket)
        #expect(machine.state == .closed)
    }

    @Test(arguments: bothRoles)
    func dataCannotBeSentAfterCloseWasSent(role: WebSocketRole) throws {
        var machine = WebSocketConnectionStateMachine(role: role)
        var output: [UInt8] = []
        machine.close(into: &output)
        let sends: [(inout [UInt8]) throws -> Void] = [
            { output in try machine.sendText("x", into: &output) },
            { output in try machine.sendBinary([1], into: &output) },
            { output in try machine.sendPing(into: &output) },
        ]
        for send in sends {
            var scratch: [UInt8] = []
            do {
                try send(&scratch)
                Issue.record("data was sent after the close frame")
            } catch {
                #expect(error as? WebSocketSendError == .closing)
            }
            #expect(scratch.isEmpty)
        }
        #expect(!machine.canSendData)
        _ = machine.receive(peerFrame(to: role, opcode: 0x8))
        var scratch: [UInt8] = []
        do {
            try machine.sendText("x", into: &scratch)
            Issue.record("data was sent after the close handshake")
        } catch {
            #expect(error == .closed)
        }
    }

    @Test(arguments: bothRoles)
    func messagesArrivingAfterCloseWasSentAreStillDeliveredButPingsAreNotAnswered(role: WebSocketRole) {
        var machine = WebSocketConnectionStateMachine(role: role)
        var output: [UInt8] = []
        machine.close(into: &output)
        let result = machine.receive(peerFrame(to: role, opcode: 0x1, payload: Array("in flight".utf8)) + peerFrame(to: role, opcode: 0x9))
        #expect(result.events == [.text("in flight"), .ping([])])
        #expect(result.bytesToWrite.isEmpty)
        #expect(!result.closeSocket)
    }

    @Test(arguments: bothRoles)
    func protocolErrorAfterCloseWasSentClosesWithoutSecondCloseFrame(role: WebSocketRole) {
        var machine = WebSocketConnectionStateMachine(role: role)
        var output: [UInt8] = []
        machine.close(into: &output)
        let result = machine.receive(peerFrame(to: role, opcode: 0x3))
        #expect(result.error == .reservedOpcode(3))
        #expect(result.bytesToWrite.isEmpty)
        #expect(result.closeSocket)
    }
}
