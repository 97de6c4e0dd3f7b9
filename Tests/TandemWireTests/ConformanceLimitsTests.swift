import Testing
import TandemWire

/// Message size limits (close code 1009) and large messages, modelled on Autobahn TestSuite
/// section 9. The limit is enforced from frame headers, before the payload is buffered.
@Suite struct ConformanceLimitsTests {
    @Test(arguments: bothRoles)
    func messageAboveLimitFailsWith1009FromTheHeaderAlone(role: WebSocketRole) throws {
        // Only the header of a 1 MiB frame is sent; the verdict must not wait for the payload.
        let header = Array(peerFrame(to: role, opcode: 0x2, payload: [UInt8](repeating: 0, count: 1 << 20)).prefix(role == .server ? 14 : 10))
        let result = outcome(role, header, maxMessageSize: 64 * 1024)
        #expect(result.error == .messageTooBig(limit: 64 * 1024))
        try expectFailed(result, role: role, code: 1009)
    }

    @Test(arguments: bothRoles)
    func messageExactlyAtLimitIsAccepted(role: WebSocketRole) {
        let payload = [UInt8](repeating: 0x41, count: 1000)
        #expect(outcome(role, peerFrame(to: role, opcode: 0x1, payload: payload), maxMessageSize: 1000).events == [.text(String(repeating: "A", count: 1000))])
    }

    @Test(arguments: bothRoles)
    func fragmentsWhoseSumExceedsLimitFailWith1009(role: WebSocketRole) throws {
        let input = peerFrame(to: role, fin: false, opcode: 0x2, payload: [UInt8](repeating: 1, count: 600))
            + peerFrame(to: role, fin: false, opcode: 0x0, payload: [UInt8](repeating: 2, count: 300))
            + peerFrame(to: role, opcode: 0x0, payload: [UInt8](repeating: 3, count: 101))
        let result = outcome(role, input, maxMessageSize: 1000)
        #expect(result.error == .messageTooBig(limit: 1000))
        try expectFailed(result, role: role, code: 1009)
    }

    @Test(arguments: bothRoles)
    func limitAppliesPerMessageNotPerConnection(role: WebSocketRole) {
        let frame = peerFrame(to: role, opcode: 0x2, payload: [UInt8](repeating: 1, count: 800))
        let result = outcome(role, frame + frame + frame, maxMessageSize: 1000)
        #expect(result.events.count == 3 && result.error == nil)
    }

    @Test(arguments: bothRoles)
    func controlFramesDoNotCountTowardsTheMessageLimit(role: WebSocketRole) {
        let input = peerFrame(to: role, fin: false, opcode: 0x2, payload: [UInt8](repeating: 1, count: 10))
            + peerFrame(to: role, opcode: 0x9, payload: [UInt8](repeating: 2, count: 125))
            + peerFrame(to: role, opcode: 0x0, payload: [UInt8](repeating: 3, count: 10))
        let result = outcome(role, input, maxMessageSize: 20)
        #expect(result.events == [.ping([UInt8](repeating: 2, count: 125)), .binary([UInt8](repeating: 1, count: 10) + [UInt8](repeating: 3, count: 10))])
    }

    @Test(arguments: bothRoles)
    func oneMebibyteMessageInFragmentsIsReassembled(role: WebSocketRole) {
        let chunk = (0..<65536).map { UInt8(truncatingIfNeeded: $0) }
        var input: [UInt8] = []
        for index in 0..<16 {
            input += peerFrame(to: role, fin: index == 15, opcode: index == 0 ? 0x2 : 0x0, payload: chunk)
        }
        var machine = WebSocketConnectionStateMachine(role: role, maxMessageSize: 1 << 20)
        // Realistic socket reads of 4 KiB.
        var results: [WebSocketReceiveResult] = []
        var offset = 0
        while offset < input.count {
            results.append(machine.receive(Array(input[offset..<min(offset + 4096, input.count)])))
            offset += 4096
        }
        let total = merged(results)
        #expect(total.error == nil)
        #expect(total.events == [.binary(Array((0..<16).map { _ in chunk }.joined()))])
    }
}
