import Testing
import TandemProtocol

@Suite struct ClientMessageTests {
    private func decode(_ text: String) throws(MessageDecodingError) -> ClientMessage {
        try ClientMessage.decode(Array(text.utf8))
    }

    private func decodeError(_ text: String) -> MessageDecodingError? {
        do {
            _ = try decode(text)
            return nil
        } catch {
            return error
        }
    }

    static let samples: [ClientMessage] = [
        .hello(Hello(token: "a.b.c", client: "phone-1")),
        .hello(Hello(token: "t", client: "c", resume: ResumePoint(epoch: "e1", rev: 42), presence: ["name": "Ann", "cursor": [1, 2]])),
        .patch(seq: 7, ops: [.set(JSONPointer(tokens: ["tabIndex"]), 1), .remove(JSONPointer(tokens: ["marks", "video/playing"]))]),
        .patch(seq: 0, ops: []),
        .presence(data: ["focus": "price", "avatar": .null]),
        .signal(event: "confetti", data: ["count": 3]),
        .signal(event: "bare", data: .null),
        .ping(t: 1_732_000_000_123),
        .ping(t: 12.5),
    ]

    @Test(arguments: samples)
    func roundTrips(message: ClientMessage) throws {
        let bytes = message.encoded()
        #expect(try ClientMessage.decode(bytes) == message)
        #expect(try ClientMessage.decode(JSONValue.parse(bytes)) == message)
        // `type` comes first so log readers and peers can dispatch early.
        #expect(bytes.starts(with: Array("{\"type\":\"\(message.type)\"".utf8)))
    }

    @Test func encodesTheDocumentedWireForm() {
        let patch = ClientMessage.patch(seq: 3, ops: [.set(JSONPointer(tokens: ["tabIndex"]), 1)])
        #expect(String(decoding: patch.encoded(), as: UTF8.self) ==
            #"{"type":"patch","seq":3,"ops":[{"op":"set","path":"/tabIndex","value":1}]}"#)
        let hello = ClientMessage.hello(Hello(token: "t", client: "c", resume: ResumePoint(epoch: "e", rev: 9)))
        #expect(String(decoding: hello.encoded(), as: UTF8.self) ==
            #"{"type":"hello","token":"t","client":"c","resume":{"epoch":"e","rev":9}}"#)
        var out = Array("x".utf8)
        ClientMessage.ping(t: 5).encode(into: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"x{"type":"ping","t":5}"#)
    }

    @Test func ignoresUnknownFields() throws {
        #expect(try decode(#"{"type":"ping","t":1,"future":{"x":[1]}}"#) == .ping(t: 1))
        #expect(try decode(#"{"v":2,"type":"hello","token":"t","client":"c","resume":null}"#) == .hello(Hello(token: "t", client: "c")))
    }

    @Test func reportsUnknownTypesDistinctly() {
        #expect(decodeError(#"{"type":"teleport","to":"mars"}"#) == .unknownType("teleport"))
        #expect(MessageDecodingError.unknownType("x").errorCode == .unknownType)
    }

    @Test func reportsMalformedInput() {
        guard case .malformedJSON(let parseError)? = decodeError(#"{"type":"ping","t":1"#) else {
            Issue.record("expected malformed JSON")
            return
        }
        #expect(parseError.offset == 20)
        #expect(decodeError("[1]") == .notAnObject)
        #expect(decodeError("[1]")?.errorCode == .badJSON)
        #expect(throws: MessageDecodingError.notAnObject) { try ClientMessage.decode(JSONValue.string("x")) }
    }

    @Test func namesMissingAndWrongTypedFields() {
        #expect(decodeError(#"{"t":1}"#) == .missingField("type"))
        #expect(decodeError(#"{"type":5}"#) == .invalidField("type", expected: "a string"))
        #expect(decodeError(#"{"type":"ping"}"#) == .missingField("t"))
        #expect(decodeError(#"{"type":"ping","t":"now"}"#) == .invalidField("t", expected: "a number"))
        #expect(decodeError(#"{"type":"hello","client":"c"}"#) == .missingField("token"))
        #expect(decodeError(#"{"type":"hello","token":"t","client":""}"#) == .invalidField("client", expected: "a non-empty string"))
        #expect(decodeError(#"{"type":"hello","token":"t","client":"c","resume":{"epoch":"e"}}"#) == .missingField("resume.rev"))
        #expect(decodeError(#"{"type":"hello","token":"t","client":"c","resume":[]}"#) == .invalidField("resume", expected: "an object"))
        #expect(decodeError(#"{"type":"hello","token":"t","client":"c","presence":"x"}"#) == .invalidField("presence", expected: "an object"))
        #expect(decodeError(#"{"type":"presence","data":[1]}"#) == .invalidField("data", expected: "an object"))
        #expect(decodeError(#"{"type":"signal","data":1}"#) == .missingField("event"))
        #expect(decodeError(#"{"type":"signal","event":"e"}"#) == .missingField("data"))
        #expect(decodeError(#"{"type":"patch","ops":[]}"#) == .missingField("seq"))
        #expect(decodeError(#"{"type":"patch","ops":[]}"#)?.errorCode == .badMessage)
    }

    @Test func refusesNegativeAndFractionalCounters() throws {
        let expected = MessageDecodingError.invalidField("seq", expected: "a non-negative integer")
        #expect(decodeError(#"{"type":"patch","seq":-1,"ops":[]}"#) == expected)
        #expect(decodeError(#"{"type":"patch","seq":1.5,"ops":[]}"#) == expected)
        #expect(decodeError(#"{"type":"patch","seq":1e300,"ops":[]}"#) == expected)
        #expect(decodeError(#"{"type":"hello","token":"t","client":"c","resume":{"epoch":"e","rev":-3}}"#) ==
            .invalidField("resume.rev", expected: "a non-negative integer"))
        #expect(try decode(#"{"type":"patch","seq":2.0e1,"ops":[]}"#) == .patch(seq: 20, ops: []))
    }

    @Test func invalidOpsKeepTheSeqForTheReject() {
        guard case .invalidPatch(let seq, let error)? = decodeError(#"{"type":"patch","seq":9,"ops":[{"op":"move","path":"/a"}]}"#) else {
            Issue.record("expected invalidPatch")
            return
        }
        #expect(seq == 9)
        #expect(error.code == .invalidOp)
        #expect(decodeError(#"{"type":"patch","seq":4,"ops":[{"op":"set","path":"x","value":1}]}"#).map(patchCode) == .invalidPath)
        #expect(decodeError(#"{"type":"patch","seq":4}"#).map(patchCode) == .invalidOp)
        #expect(decodeError(#"{"type":"patch","seq":4,"ops":{}}"#).map(patchCode) == .invalidOp)
    }

    private func patchCode(_ error: MessageDecodingError) -> RejectCode? {
        if case .invalidPatch(_, let patchError) = error { return patchError.code }
        return nil
    }
}
