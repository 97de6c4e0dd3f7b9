import Testing
import TandemProtocol

/// The document depth rule: no write lands deeper than `PatchLimits.maxDepth`, checked per op and
/// atomically, and every message carrying a value within the rule stays inside the parsers' limit.
@Suite struct DocumentDepthTests {
    private func pointer(_ tokens: Int) -> JSONPointer { JSONPointer(tokens: Array(repeating: "x", count: tokens)) }

    /// `{"x":{"x":…{}}}` with `levels` containers (0: a scalar).
    private func nested(_ levels: Int, leaf: JSONValue = 1) -> JSONValue {
        var value = leaf
        for _ in 0..<levels { value = ["x": value] }
        return value
    }

    @Test func depthCountsContainersAndStopsPastTheLimit() {
        #expect(JSONValue.number(1).depth == 0)
        #expect(JSONValue.emptyObject.depth == 1)
        #expect(JSONValue.array([]).depth == 1)
        let mixed: JSONValue = ["a": [1, ["b": []]], "c": 2]
        #expect(mixed.depth == 4)
        #expect(nested(100).depth == 100)
        #expect(nested(100).depth(exceeding: 99) == nil)
        #expect(nested(100).depth(exceeding: 100) == 100)
        #expect(nested(5).depth(exceeding: 0) == nil)
        #expect(JSONValue.string("s").depth(exceeding: 0) == 0)
    }

    @Test func aSetLandsAtItsPathLengthPlusTheValuesDepth() throws {
        let limits = PatchLimits(maxDepth: 10)
        var doc = Document()
        // Path of 9 tokens with a scalar: the created parents make the root 9 deep.
        try doc.apply([.set(pointer(9), 1)], limits: limits)
        #expect(doc.root.depth == 9)
        // A scalar at 10 tokens: 10 deep, allowed; one container more is not.
        try doc.apply([.set(pointer(9), .emptyObject), .set(pointer(10), 1)], limits: limits)
        #expect(doc.root.depth == 10)
        #expect(throws: PatchError.tooDeep(op: 0, depth: 11, limit: 10)) {
            try doc.apply([.set(pointer(10), .emptyObject)], limits: limits)
        }
        // A path longer than the limit is refused before it is walked.
        #expect(throws: PatchError.tooDeep(op: 0, depth: 11, limit: 10)) {
            try doc.apply([.set(pointer(11), 1)], limits: limits)
        }
        // The root may be set to an object exactly as deep as the limit, not deeper.
        try doc.apply([.set(JSONPointer(tokens: []), nested(10))], limits: limits)
        #expect(throws: PatchError.tooDeep(op: 0, depth: 11, limit: 10)) {
            try doc.apply([.set(JSONPointer(tokens: []), nested(11))], limits: limits)
        }
    }

    @Test func aTooDeepOpRefusesTheWholePatch() throws {
        var doc = Document(["keep": 1])
        let before = doc
        let error = #expect(throws: PatchError.self) {
            try doc.apply([.set(JSONPointer(tokens: ["a"]), 2), .remove(JSONPointer(tokens: ["keep"])), .set(pointer(3), nested(30))])
        }
        #expect(error == .tooDeep(op: 2, depth: 33, limit: PatchLimits.defaultMaxDepth))
        #expect(error?.code == .tooDeep)
        #expect(error?.code.wireValue == "too_deep")
        #expect(error?.opIndex == 2)
        #expect(doc == before)
        #expect(doc.byteCount == doc.root.serializedBytes().count)
    }

    @Test func theHostilePatchesOfTheReportAreRefused() throws {
        var doc = Document()
        // 70 levels of path, and 60 levels of value under 10 of path.
        #expect(throws: PatchError.tooDeep(op: 0, depth: 70, limit: 32)) { try doc.apply([.set(pointer(70), 1)]) }
        #expect(throws: PatchError.tooDeep(op: 0, depth: 70, limit: 32)) { try doc.apply([.set(pointer(10), nested(60))]) }
        #expect(doc.root == .emptyObject)
    }

    @Test func aDocumentDeeperThanTheLimitStaysUsableAndCannotGrowDeeper() throws {
        // Stored before the limit: 40 levels.
        var doc = Document(["deep": nested(39), "flat": 1])
        #expect(doc.root.depth == 40)
        // Shallow writes and removals work, also inside the deep part.
        try doc.apply([.set(JSONPointer(tokens: ["flat"]), 2), .remove(pointer(20).appendingToDeep())])
        #expect(doc.root.depth == 21)
        var again = Document(["deep": nested(39)])
        // A write that lands past the limit is refused even where the document is already deeper.
        #expect(throws: PatchError.self) { try again.apply([.set(JSONPointer(tokens: ["deep"] + Array(repeating: "x", count: 35)), 1)]) }
        // Replacing the deep branch with something shallow is allowed.
        try again.apply([.set(JSONPointer(tokens: ["deep"]), 1)])
        #expect(again.root == ["deep": 1])
    }

    @Test func unlimitedAppliesAnyDepth() throws {
        var doc = Document()
        try doc.apply([.set(pointer(200), nested(100))], limits: .unlimited)
        #expect(doc.root.depth == 300)
    }

    @Test func theCeilingKeepsEveryMessageCarryingTheDeepestValueReadable() throws {
        let limit = PatchLimits.deepestAllowed
        #expect(limit == JSONValue.defaultMaxDepth - PatchLimits.envelopeDepth)
        let root = nested(limit)
        let deepestOp = PatchOp.set(JSONPointer(tokens: []), root)
        _ = try Document().applying([deepestOp], limits: PatchLimits(maxDepth: limit))
        let you = SessionIdentity(user: "u", client: "c", role: .host)
        let event = PatchEvent(rev: 1, user: "u", client: "c", seq: 1, ops: [deepestOp])
        let participant = Participant(user: "u", client: "c", role: .host, data: root)
        let messages: [ServerMessage] = [
            .welcome(Welcome(epoch: "e", rev: 1, sync: .state(root), lastSeq: 0, you: you, participants: [participant])),
            .welcome(Welcome(epoch: "e", rev: 1, sync: .replay([event]), lastSeq: 0, you: you, participants: [])),
            .patch(event), .join(participant), .presence(Peer(user: "u", client: "c"), data: root),
            .signal(from: Peer(user: "u", client: "c"), event: "e", data: root),
        ]
        for message in messages {
            #expect(try ServerMessage.decode(message.encoded()) == message, "\(message.type)")
        }
        // One level more in a replay is what the ceiling prevents.
        let deeper = PatchEvent(rev: 1, user: "u", client: "c", seq: 1, ops: [.set(JSONPointer(tokens: []), nested(limit + 1))])
        #expect(throws: MessageDecodingError.self) {
            try ServerMessage.decode(ServerMessage.welcome(Welcome(epoch: "e", rev: 1, sync: .replay([deeper]), lastSeq: 0, you: you, participants: [])).encoded())
        }
    }

    @Test func limitsAreAnnouncedAndAnOlderServersWelcomeReadsAsTheCeiling() throws {
        let you = SessionIdentity(user: "u", client: "c", role: .host)
        let welcome = Welcome(epoch: "e", rev: 0, sync: .state(.emptyObject), lastSeq: 0, you: you, participants: [],
                              limits: SessionLimits(maxDepth: 7))
        guard case .welcome(let decoded) = try ServerMessage.decode(ServerMessage.welcome(welcome).encoded()) else {
            Issue.record("not a welcome")
            return
        }
        #expect(decoded.limits.maxDepth == 7)
        #expect(decoded.limits.patchLimits.maxDepth == 7)
        let older = #"{"type":"welcome","epoch":"e","rev":0,"state":{},"lastSeq":0,"you":{"user":"u","client":"c","role":"host"},"#
            + #""participants":[],"heartbeat":{"interval":10000,"timeout":30000},"#
            + #""limits":{"rate":60,"burst":120,"maxMessage":65536,"maxOps":100,"maxDocument":1048576}}"#
        guard case .welcome(let old) = try ServerMessage.decode(Array(older.utf8)) else {
            Issue.record("not a welcome")
            return
        }
        #expect(old.limits.maxDepth == PatchLimits.deepestAllowed)
    }

    @Test func ephemeralDataIsMeasuredAgainstTheSameLimit() {
        let limits = PatchLimits(maxDepth: 4)
        #expect(limits.excessDepth(of: nested(4)) == nil)
        #expect(limits.excessDepth(of: nested(5)) == 5)
        #expect(limits.excessDepth(of: .emptyObject) == nil)
    }

    @Test func storedDataIsReadFarDeeperThanMessages() throws {
        let deep = nested(300)
        let bytes = deep.serializedBytes()
        #expect(throws: JSONParseError.self) { try JSONValue.parse(bytes) }
        #expect(try JSONValue.parseStored(bytes) == deep)
        #expect(throws: JSONParseError.self) { try JSONValue.parseStored(nested(JSONValue.storedMaxDepth + 1).serializedBytes()) }
    }
}

private extension JSONPointer {
    /// This pointer under the `deep` member.
    func appendingToDeep() -> JSONPointer { JSONPointer(tokens: ["deep"] + tokens) }
}

/// `welcome.forgotten` on the wire: written only when true, read as false when absent.
@Suite struct WelcomeForgottenTests {
    @Test func theFlagRoundTripsAndIsOmittedWhenFalse() throws {
        let you = SessionIdentity(user: "u", client: "c", role: .host)
        let flagged = ServerMessage.welcome(Welcome(epoch: "e", rev: 3, sync: .state(.emptyObject), lastSeq: 0, forgotten: true, you: you, participants: []))
        let text = String(decoding: flagged.encoded(), as: UTF8.self)
        #expect(text.contains(#""lastSeq":0,"forgotten":true,"you""#))
        #expect(try ServerMessage.decode(flagged.encoded()) == flagged)
        let plain = ServerMessage.welcome(Welcome(epoch: "e", rev: 3, sync: .state(.emptyObject), lastSeq: 0, you: you, participants: []))
        #expect(!String(decoding: plain.encoded(), as: UTF8.self).contains("forgotten"))
        guard case .welcome(let read) = try ServerMessage.decode(plain.encoded()) else { Issue.record("not a welcome"); return }
        #expect(read.forgotten == false)
        #expect(RejectCode(wireValue: "progress_expired") == .progressExpired)
    }
}

