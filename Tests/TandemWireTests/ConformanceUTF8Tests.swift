import Testing
import TandemWire

/// UTF-8 handling of text messages (RFC 6455 §5.6, §8.1), modelled on Autobahn TestSuite
/// section 6: invalid text fails with 1007, as early as the invalid prefix is seen.
@Suite struct ConformanceUTF8Tests {
    static let invalidSequences: [[UInt8]] = [
        [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64, 0x69, 0x74, 0x65, 0x64],
        [0xC0, 0xAF],  // overlong "/"
        [0xE0, 0x80, 0xAF],  // overlong "/"
        [0xF0, 0x80, 0x80, 0xAF],  // overlong "/"
        [0xED, 0xBF, 0xBF],  // surrogate U+DFFF
        [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
        [0xF8, 0x88, 0x80, 0x80, 0x80],  // 5-byte form
        [0x80],  // lone continuation
        [0xFE], [0xFF],
        [0x61, 0xC3],  // truncated at the end
        [0xE2, 0x82],  // truncated 3-byte sequence
    ]

    @Test(arguments: bothRoles, invalidSequences)
    func invalidUTF8InSingleFrameTextFailsWith1007(role: WebSocketRole, bytes: [UInt8]) throws {
        let result = outcome(role, peerFrame(to: role, opcode: 0x1, payload: bytes))
        #expect(result.error == .invalidUTF8)
        #expect(result.events.isEmpty)
        try expectFailed(result, role: role, code: 1007)
    }

    @Test(arguments: bothRoles, invalidSequences)
    func invalidUTF8SplitIntoOneByteFragmentsFailsWith1007(role: WebSocketRole, bytes: [UInt8]) throws {
        let input = oneByteFragments(to: role, bytes)
        let result = outcome(role, input)
        #expect(result.error == .invalidUTF8)
        try expectFailed(result, role: role, code: 1007)
    }

    @Test(arguments: bothRoles)
    func invalidPrefixFailsBeforeTheFinalFragmentArrives(role: WebSocketRole) throws {
        // The final fragment is never sent: the failure must come from the prefix alone.
        let input = peerFrame(to: role, fin: false, opcode: 0x1, payload: Array("valid ".utf8))
            + peerFrame(to: role, fin: false, opcode: 0x0, payload: [0xED, 0xA0, 0x80])
        let result = outcome(role, input)
        #expect(result.error == .invalidUTF8)
        try expectFailed(result, role: role, code: 1007)
    }

    @Test(arguments: bothRoles)
    func invalidBytesInsideAnIncompleteFrameFailBeforeTheFrameEnds(role: WebSocketRole) throws {
        // A 1000-byte text frame whose 6th byte is impossible; only its first 10 bytes arrive.
        var payload = [UInt8](repeating: 0x61, count: 1000)
        payload[5] = 0xC0
        let frame = peerFrame(to: role, opcode: 0x1, payload: payload)
        let headerLength = frame.count - 1000
        let result = outcome(role, Array(frame.prefix(headerLength + 10)))
        #expect(result.error == .invalidUTF8)
        try expectFailed(result, role: role, code: 1007)
    }

    @Test(arguments: bothRoles)
    func textArrivingInPiecesAtEveryMaskPhaseIsUnmaskedCorrectly(role: WebSocketRole) {
        let text = "phase ✓ κόσμε 𝄞 " + String(repeating: "0123456789", count: 5)
        let frame = peerFrame(to: role, fin: false, opcode: 0x1, payload: Array(text.utf8))
            + peerFrame(to: role, opcode: 0x0, payload: Array(text.utf8))
        for chunk in 1...9 {
            var machine = WebSocketConnectionStateMachine(role: role)
            var results: [WebSocketReceiveResult] = []
            var offset = 0
            while offset < frame.count {
                results.append(machine.receive(Array(frame[offset..<min(offset + chunk, frame.count)])))
                offset += chunk
            }
            #expect(merged(results).events == [.text(text + text)], "chunk \(chunk)")
        }
    }

    @Test(arguments: bothRoles)
    func codePointSplitAcrossFragmentsIsAccepted(role: WebSocketRole) {
        let text = "κόσμε𝄞"
        let bytes = Array(text.utf8)
        // Split inside the two-byte "κ" and inside the four-byte "𝄞".
        let input = peerFrame(to: role, fin: false, opcode: 0x1, payload: Array(bytes[0..<1]))
            + peerFrame(to: role, fin: false, opcode: 0x0, payload: Array(bytes[1..<(bytes.count - 2)]))
            + peerFrame(to: role, opcode: 0x0, payload: Array(bytes[(bytes.count - 2)...]))
        #expect(outcome(role, input).events == [.text(text)])
    }

    @Test(arguments: bothRoles)
    func binaryMessagesAreNotValidatedAsUTF8(role: WebSocketRole) {
        #expect(outcome(role, peerFrame(to: role, opcode: 0x2, payload: [0xFF, 0xC0])).events == [.binary([0xFF, 0xC0])])
    }

    @Test(arguments: bothRoles)
    func validUTF8EdgeCodePointsAreAccepted(role: WebSocketRole) {
        let text = "\u{0}\u{7F}\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFD}\u{FFFF}\u{10000}\u{10FFFF}"
        #expect(outcome(role, peerFrame(to: role, opcode: 0x1, payload: Array(text.utf8))).events == [.text(text)])
    }
}
