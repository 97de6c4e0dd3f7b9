import Testing
import TandemProtocol

/// An event that carries its ops' encoding writes those bytes as they are; its identity is its content.
@Suite struct PatchEventEncodingTests {
    static let ops: [PatchOp] = [.set(JSONPointer(tokens: ["tab"]), 2)]

    static func encoded(_ ops: [PatchOp]) -> [UInt8] {
        var bytes: [UInt8] = []
        PatchOp.write(ops, into: &bytes)
        return bytes
    }

    @Test func theCarriedEncodingIsWrittenVerbatimInPatchMessagesAndReplays() throws {
        // Spaced differently from what the encoder writes, so the test sees which bytes were used.
        let carried = Array(#"[ {"op":"set","path":"/tab","value":2} ]"#.utf8)
        let event = PatchEvent(rev: 3, user: "u", client: "c", seq: 1, ops: Self.ops, encodedOps: carried)
        let patch = String(decoding: ServerMessage.patch(event).encoded(), as: UTF8.self)
        #expect(patch.contains(#""ops":[ {"op":"set","path":"/tab","value":2} ]}"#))
        let welcome = Welcome(epoch: "e", rev: 3, sync: .replay([event]), lastSeq: 0,
                              you: SessionIdentity(user: "u", client: "c", role: .host), participants: [])
        #expect(String(decoding: ServerMessage.welcome(welcome).encoded(), as: UTF8.self).contains(#"[ {"op":"set","path":"/tab","value":2} ]"#))
        #expect(try ServerMessage.decode(ServerMessage.patch(event).encoded()) == .patch(event))
    }

    @Test func changingTheOpsDropsTheCarriedEncoding() {
        var event = PatchEvent(rev: 3, user: "u", client: "c", seq: 1, ops: Self.ops, encodedOps: Self.encoded(Self.ops))
        event.ops = [.remove(JSONPointer(tokens: ["tab"]))]
        #expect(event.encodedOps == nil)
        #expect(String(decoding: ServerMessage.patch(event).encoded(), as: UTF8.self).contains(#""op":"remove""#))
    }

    @Test func eventsAreEqualByContentWhetherOrNotTheyCarryTheEncoding() {
        let plain = PatchEvent(rev: 3, user: "u", client: "c", seq: 1, ops: Self.ops)
        let carrying = PatchEvent(rev: 3, user: "u", client: "c", seq: 1, ops: Self.ops, encodedOps: Self.encoded(Self.ops))
        #expect(plain == carrying)
        #expect(plain.hashValue == carrying.hashValue)
        #expect(plain != PatchEvent(rev: 4, user: "u", client: "c", seq: 1, ops: Self.ops))
    }
}
