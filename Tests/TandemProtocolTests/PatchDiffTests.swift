import Testing
import TandemProtocol

@Suite struct PatchDiffTests {
    @Test func producesMinimalOpsInPathOrder() {
        let old: JSONValue = ["tabIndex": 0, "marks": ["a": true, "b": 1], "list": [1, 2], "same": ["x": 1]]
        let new: JSONValue = ["tabIndex": 1, "marks": ["a": true, "c": "new"], "list": [1, 3], "same": ["x": 1]]
        #expect(PatchOp.diff(from: old, to: new) == [
            .set(JSONPointer(tokens: ["list", "1"]), 3),
            .set(JSONPointer(tokens: ["marks", "c"]), "new"),
            .remove(JSONPointer(tokens: ["marks", "b"])),
            .set(JSONPointer(tokens: ["tabIndex"]), 1),
        ])
        #expect(PatchOp.diff(from: old, to: old).isEmpty)
    }

    @Test func aLengthChangeInsertsAndRemovesByIndexBetweenWhatStaysTheSame() throws {
        let list = { (token: String) in JSONPointer(tokens: ["list", token]) }
        #expect(PatchOp.diff(from: ["list": [1, 2, 3]], to: ["list": [1, 3]]) == [.remove(list("1"))])
        #expect(PatchOp.diff(from: ["list": [1, 2, 3]], to: ["list": [1, 2]]) == [.remove(list("2"))])
        #expect(PatchOp.diff(from: ["list": [1, 2, 3, 4]], to: ["list": [1, 4]]) == [.remove(list("1")), .remove(list("1"))])
        #expect(PatchOp.diff(from: ["list": [1, 2]], to: ["list": [0, 1, 2]]) == [.add(list("0"), 0)])
        #expect(PatchOp.diff(from: ["list": [1, 3]], to: ["list": [1, 2, 2.5, 3]]) == [.add(list("1"), 2), .add(list("2"), 2.5)])
        // What changed in between is compared element by element as far as both go.
        #expect(PatchOp.diff(from: ["list": [1, ["n": 1], 3]], to: ["list": [1, ["n": 2], "x", 3]])
                == [.set(JSONPointer(tokens: ["list", "1", "n"]), 2), .add(list("2"), "x")])
        #expect(PatchOp.diff(from: ["v": 1], to: ["v": ["now": "object"]]) == [.set(JSONPointer(tokens: ["v"]), ["now": "object"])])
        // Rebased, a removal takes out the element its author saw though someone inserted before it.
        var server = Document(["list": [1, 2, 3]])
        var edits: [ArrayEdit] = []
        try server.apply([.add(list("0"), 0)], edits: &edits)
        var changes = [edits]
        try server.apply(try PatchRebase.rebase(PatchOp.diff(from: ["list": [1, 2, 3]], to: ["list": [1, 3]]), over: &changes))
        #expect(server.root == ["list": [0, 1, 3]])
    }

    @Test func appendedElementsAreAddsAtTheEnd() throws {
        let old: JSONValue = ["cart": [["id": 1]], "tags": []]
        let new: JSONValue = ["cart": [["id": 1], ["id": 2], ["id": 3]], "tags": ["sale"]]
        let end = try JSONPointer(parsing: "/cart/-")
        #expect(PatchOp.diff(from: old, to: new) == [.add(end, ["id": 2]), .add(end, ["id": 3]), .add(try JSONPointer(parsing: "/tags/-"), "sale")])
        // Appending to what someone else appended meanwhile keeps both.
        var server = Document(["cart": [["id": 1], ["id": 9]], "tags": []])
        try server.apply(PatchOp.diff(from: old, to: new))
        #expect(server.root == ["cart": [["id": 1], ["id": 9], ["id": 2], ["id": 3]], "tags": ["sale"]])
    }

    @Test func appliesBackToTheTarget() throws {
        var generator = SplitMix64(seed: 99)
        let unlimited = PatchLimits(maxOps: .max, maxDocument: .max)
        for _ in 0..<300 {
            let old = JSONValue.randomObject(using: &generator)
            let new = JSONValue.randomObject(using: &generator)
            var doc = try #require(Document(old))
            try doc.apply(PatchOp.diff(from: old, to: new), limits: unlimited)
            #expect(doc.root == new)
            #expect(doc.byteCount == new.serializedByteCount)
        }
    }
}

extension JSONValue {
    /// A random object whose members often overlap with other random objects, so diffs mix
    /// sets, removes and recursion.
    static func randomObject(using generator: inout SplitMix64, depth: Int = 3) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for key in ["a", "b", "c/d", "e~"] where Bool.random(using: &generator) {
            switch Int.random(in: 0..<4, using: &generator) {
            case 0 where depth > 0: members[key] = randomObject(using: &generator, depth: depth - 1)
            case 1: members[key] = .array((0..<Int.random(in: 0...2, using: &generator)).map { _ in
                depth > 0 ? randomObject(using: &generator, depth: depth - 1) : .number(1) })
            default: members[key] = random(using: &generator, depth: 0)
            }
        }
        return .object(members)
    }
}
