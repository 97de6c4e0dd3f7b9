import Foundation
import Testing
import TandemProtocol

@Suite struct ServerMessageTests {
    private func decodeError(_ text: String) -> MessageDecodingError? {
        do {
            _ = try ServerMessage.decode(Array(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    static let event = PatchEvent(
        rev: 12, user: "u1", client: "c1", seq: 5,
        ops: [.set(JSONPointer(tokens: ["contentOffset"]), ["x": 0, "y": 1287.5]), .remove(JSONPointer(tokens: ["marks", "coupon"]))])

    static let participants = [
        Participant(user: "u1", client: "c1", role: .host, name: "Ann", data: ["cursor": [3, 4]]),
        Participant(user: "u2", client: "c2", role: .viewer),
    ]

    static let samples: [ServerMessage] = [
        .welcome(Welcome(
            epoch: "9f2c", rev: 12, sync: .state(["tabIndex": 1, "marks": ["a": true]]), lastSeq: 0,
            you: SessionIdentity(user: "u2", client: "c2", role: .viewer), participants: participants)),
        .welcome(Welcome(
            epoch: "9f2c", rev: 13, sync: .replay([event, PatchEvent(rev: 13, user: "u2", client: "c2", seq: 1, ops: [])]),
            lastSeq: 4, you: SessionIdentity(user: "u1", client: "c1", role: .host), participants: [],
            heartbeat: HeartbeatSettings(interval: 5_000, timeout: 15_000),
            limits: SessionLimits(rate: 12.5, burst: 20, maxMessage: 1024, maxOps: 10, maxDocument: 4096))),
        .welcome(Welcome(
            epoch: "e", rev: 0, sync: .replay([]), lastSeq: 0, you: SessionIdentity(user: "u", client: "c", role: .guest),
            participants: participants)),
        .patch(event),
        .ack(seq: 5, rev: 12, duplicate: false),
        .ack(seq: 4, rev: 9, duplicate: true),
        .reject(seq: 6, code: .forbidden, message: "viewers may not patch"),
        .reject(seq: 7, code: .other("quota_exceeded"), message: "later"),
        .join(participants[0]),
        .join(participants[1]),
        .presence(Peer(user: "u1", client: "c1"), data: ["focus": "price"]),
        .leave(Peer(user: "u2", client: "c2")),
        .signal(from: Peer(user: "u1", client: "c1"), event: "confetti", data: [1, "two"]),
        .pong(t: 1_732_000_000_123),
        .error(code: .unknownType, message: "unknown message type \"x\""),
        .error(code: .other("future_code"), message: "m"),
    ]

    @Test(arguments: samples)
    func roundTrips(message: ServerMessage) throws {
        let bytes = message.encoded()
        #expect(try ServerMessage.decode(bytes) == message)
        #expect(try ServerMessage.decode(JSONValue.parse(bytes)) == message)
        #expect(bytes.starts(with: Array("{\"type\":\"\(message.type)\"".utf8)))
    }

    @Test func encodesTheDocumentedWireForm() {
        func text(_ message: ServerMessage) -> String { String(decoding: message.encoded(), as: UTF8.self) }
        #expect(text(.ack(seq: 3, rev: 10, duplicate: true)) == #"{"type":"ack","seq":3,"rev":10,"duplicate":true}"#)
        #expect(text(.reject(seq: 3, code: .tooManyOps, message: "m")) == #"{"type":"reject","seq":3,"code":"too_many_ops","message":"m"}"#)
        #expect(text(.leave(Peer(user: "u", client: "c"))) == #"{"type":"leave","user":"u","client":"c"}"#)
        #expect(text(.signal(from: Peer(user: "u", client: "c"), event: "e", data: .null)) ==
            #"{"type":"signal","from":{"user":"u","client":"c"},"event":"e","data":null}"#)
        #expect(text(.join(Participant(user: "u", client: "c", role: .guest))) ==
            #"{"type":"join","user":"u","client":"c","role":"guest","data":{}}"#)
        #expect(text(.patch(PatchEvent(rev: 2, user: "u", client: "c", seq: 1, ops: []))) ==
            #"{"type":"patch","rev":2,"user":"u","client":"c","seq":1,"ops":[]}"#)
        let welcome = Welcome(
            epoch: "e", rev: 1, sync: .state(["a": 1]), lastSeq: 0, you: SessionIdentity(user: "u", client: "c", role: .host),
            participants: [Participant(user: "u", client: "c", role: .host, name: "N")])
        #expect(text(.welcome(welcome)) ==
            #"{"type":"welcome","epoch":"e","rev":1,"state":{"a":1},"lastSeq":0,"you":{"user":"u","client":"c","role":"host"},"#
            + #""participants":[{"user":"u","client":"c","role":"host","name":"N","data":{}}],"heartbeat":{"interval":10000,"timeout":30000},"#
            + #""limits":{"rate":120,"burst":240,"maxMessage":65536,"maxOps":100,"maxDocument":1048576,"maxDepth":32}}"#)
    }

    @Test func patchEventBytesCanBeSharedAcrossConnections() throws {
        var out: [UInt8] = []
        Self.event.write(into: &out)
        #expect(out == ServerMessage.patch(Self.event).encoded())
        #expect(try ServerMessage.decode(out) == .patch(Self.event))
    }

    @Test func ignoresUnknownFieldsAndAcceptsReplayEntriesWithoutType() throws {
        let text = #"{"type":"welcome","epoch":"e","rev":2,"replay":[{"rev":2,"user":"u","client":"c","seq":1,"ops":[],"x":1}],"#
            + #""lastSeq":0,"you":{"user":"u","client":"c","role":"guest","extra":true},"participants":[],"#
            + #""heartbeat":{"interval":1,"timeout":2},"limits":{"rate":1,"burst":1,"maxMessage":1,"maxOps":1,"maxDocument":1},"new":[]}"#
        guard case .welcome(let welcome) = try ServerMessage.decode(Array(text.utf8)) else {
            Issue.record("expected a welcome")
            return
        }
        #expect(welcome.sync == .replay([PatchEvent(rev: 2, user: "u", client: "c", seq: 1, ops: [])]))
        #expect(welcome.you.role == .guest)
    }

    @Test func reportsUnknownTypesDistinctly() {
        #expect(decodeError(#"{"type":"hyperpatch"}"#) == .unknownType("hyperpatch"))
    }

    @Test func namesMissingAndWrongTypedFields() {
        #expect(decodeError(#"{"type":"ack","seq":1,"rev":2}"#) == .missingField("duplicate"))
        #expect(decodeError(#"{"type":"ack","seq":1,"rev":2,"duplicate":"yes"}"#) == .invalidField("duplicate", expected: "true or false"))
        #expect(decodeError(#"{"type":"ack","seq":1,"rev":-2,"duplicate":true}"#) == .invalidField("rev", expected: "a non-negative integer"))
        #expect(decodeError(#"{"type":"patch","rev":1,"user":"u","client":"c","seq":1,"ops":[{"op":"x","path":"/a"}]}"#)
            == .invalidField("ops[0]", expected: "a valid op (op 0: unknown op \"x\" (expected \"set\", \"remove\", \"add\", \"replace\", \"move\", \"copy\" or \"test\"))"))
        #expect(decodeError(#"{"type":"patch","rev":1,"user":"u","client":"c","seq":1,"ops":7}"#) == .invalidField("ops", expected: "an array of ops"))
        #expect(decodeError(#"{"type":"join","user":"u","client":"c","role":"admin","data":{}}"#) ==
            .invalidField("role", expected: "\"host\", \"guest\" or \"viewer\""))
        #expect(decodeError(#"{"type":"join","user":"u","client":"c","role":"host"}"#) == .missingField("data"))
        #expect(decodeError(#"{"type":"join","user":"u","client":"c","role":"host","name":1,"data":{}}"#) == .invalidField("name", expected: "a string"))
        #expect(decodeError(#"{"type":"signal","from":{"user":"u"},"event":"e","data":1}"#) == .missingField("from.client"))
        #expect(decodeError(#"{"type":"pong"}"#) == .missingField("t"))
        #expect(decodeError(#"{"type":"error","code":"x"}"#) == .missingField("message"))
        #expect(decodeError(#"{"type":"presence","user":"u","client":"c","data":3}"#) == .invalidField("data", expected: "an object"))
    }

    @Test func validatesWelcomeShapes() {
        let tail = #""lastSeq":0,"you":{"user":"u","client":"c","role":"host"},"participants":[],"heartbeat":{"interval":1,"timeout":2},"limits":{"rate":1,"burst":1,"maxMessage":1,"maxOps":1,"maxDocument":1}}"#
        let head = #"{"type":"welcome","epoch":"e","rev":1,"#
        #expect(decodeError(head + tail) == .missingField("state"))
        #expect(decodeError(head + #""state":{},"replay":[],"# + tail) == .invalidField("state", expected: "absent when \"replay\" is present"))
        #expect(decodeError(head + #""state":[],"# + tail) == .invalidField("state", expected: "an object"))
        #expect(decodeError(head + #""replay":[1],"# + tail) == .invalidField("replay[0]", expected: "an object"))
        #expect(decodeError(head + #""replay":[{"rev":1}],"# + tail) == .missingField("replay[0].user"))
        #expect(decodeError(head + #""state":{},"# + tail.replacingOccurrences(of: #""participants":[]"#, with: #""participants":[{"user":"u"}]"#))
            == .missingField("participants[0].client"))
        #expect(decodeError(head + #""state":{},"# + tail.replacingOccurrences(of: #""rate":1"#, with: #""rate":-1"#))
            == .invalidField("limits.rate", expected: "a number of messages per second, 0 for no limit"))
        // Rate 0 announces a server without a rate limit.
        guard case .welcome(let unlimited)? = try? ServerMessage.decode(Array((head + #""state":{},"# + tail.replacingOccurrences(of: #""rate":1"#, with: #""rate":0"#)).utf8)) else {
            Issue.record("a welcome with rate 0 did not decode")
            return
        }
        #expect(unlimited.limits.rate == 0)
        #expect(decodeError(head + #""state":{},"# + tail.replacingOccurrences(of: #""interval":1"#, with: #""interval":1.5"#))
            == .invalidField("heartbeat.interval", expected: "a non-negative integer"))
    }
}
