import Testing
import TandemProtocol

/// The list rules of `PatchRebase`: one patch applied first (`first`), another made on the same state
/// (`then`) rebased over the first one's array edits, then applied.
@Suite struct PatchRebaseTests {
    private func ops(_ text: String) throws -> [PatchOp] { try PatchOp.list(from: try JSONValue.parse(text)) }
    private func json(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

    /// The state after `first` and then `then` rebased, and the rebased ops.
    private func run(_ base: String, first: String, then: String) throws -> (state: JSONValue, rebased: [PatchOp]) {
        var document = try #require(Document(try json(base)))
        var edits: [ArrayEdit] = []
        try document.apply(try ops(first), edits: &edits)
        var changes = [edits]
        let rebased = try PatchRebase.rebase(try ops(then), over: &changes)
        try document.apply(rebased)
        return (document.root, rebased)
    }

    @Test func applyRecordsTheArrayEditsOfAPatchTypedStepByStep() throws {
        var document = try #require(Document(try json(#"{"lists":[{"items":[1,2]}],"byID":{"0":[7]}}"#)))
        var edits: [ArrayEdit] = []
        try document.apply(try ops(#"""
            [{"op":"add","path":"/lists/0/items/-","value":3},{"op":"remove","path":"/byID/0/0"},
             {"op":"move","from":"/lists/0/items/0","path":"/lists/-"},{"op":"set","path":"/other","value":1}]
            """#), edits: &edits)
        #expect(edits == [
            ArrayEdit(.insert, array: [.member("lists"), .element(0), .member("items")], index: 2),
            ArrayEdit(.remove, array: [.member("byID"), .member("0")], index: 0),
            ArrayEdit(.remove, array: [.member("lists"), .element(0), .member("items")], index: 0),
            ArrayEdit(.insert, array: [.member("lists")], index: 1),
        ])
        // A refused patch records nothing.
        var none: [ArrayEdit] = []
        #expect(throws: PatchError.self) { try document.apply(try ops(#"[{"op":"add","path":"/lists/-","value":1},{"op":"test","path":"/other","value":2}]"#), edits: &none) }
        #expect(none.isEmpty)
    }

    @Test("of two inserts at one index the one applied first comes first, and the rebased patch's later ops still name its own insert")
    func aTieBetweenInsertsKeepsTheFirstAppliedFirstForTheRestOfThePatch() throws {
        let (state, rebased) = try run(#"{"l":["o"]}"#, first: #"[{"op":"add","path":"/l/0","value":"r"}]"#,
                                       then: #"[{"op":"add","path":"/l/0","value":"a"},{"op":"replace","path":"/l/0","value":"A"}]"#)
        #expect(state == ["l": ["r", "A", "o"]])
        #expect(rebased == (try ops(#"[{"op":"add","path":"/l/1","value":"a"},{"op":"replace","path":"/l/1","value":"A"}]"#)))
    }

    @Test func twoAppendsBothLand() throws {
        let result = try run(#"{"cart":["x"]}"#, first: #"[{"op":"add","path":"/cart/-","value":"a"}]"#,
                             then: #"[{"op":"add","path":"/cart/-","value":"b"}]"#)
        #expect(result.state == (try json(#"{"cart":["x","a","b"]}"#)))
    }

    @Test func anInsertAtTheSameIndexGoesAfterTheOneAppliedFirst() throws {
        let result = try run(#"{"cart":["x","y"]}"#, first: #"[{"op":"add","path":"/cart/1","value":"a"}]"#,
                             then: #"[{"op":"add","path":"/cart/1","value":"b"}]"#)
        #expect(result.state == (try json(#"{"cart":["x","a","b","y"]}"#)))
    }

    @Test func aRemoveFollowsItsElementPastAnInsertBeforeIt() throws {
        let result = try run(#"{"cart":["x","y","z","w"]}"#, first: #"[{"op":"add","path":"/cart/0","value":"n"}]"#,
                             then: #"[{"op":"remove","path":"/cart/3"}]"#)
        #expect(result.state == (try json(#"{"cart":["n","x","y","z"]}"#)))
        #expect(result.rebased == (try ops(#"[{"op":"remove","path":"/cart/4"}]"#)))
    }

    @Test func opsOnAnElementSomeoneRemovedAreDropped() throws {
        let base = #"{"cart":[{"id":"x"},{"id":"y","qty":1},{"id":"z"}]}"#
        let removeY = #"[{"op":"remove","path":"/cart/1"}]"#
        let expected = try json(#"{"cart":[{"id":"x"},{"id":"z"}]}"#)
        for then in [#"[{"op":"remove","path":"/cart/1"}]"#, #"[{"op":"set","path":"/cart/1/qty","value":2}]"#,
                     #"[{"op":"replace","path":"/cart/1","value":{"id":"q"}}]"#, #"[{"op":"add","path":"/cart/1/note","value":"n"}]"#,
                     #"[{"op":"move","from":"/cart/1","path":"/cart/0"}]"#, #"[{"op":"copy","from":"/cart/1","path":"/cart/-"}]"#] {
            let result = try run(base, first: removeY, then: then)
            #expect(result.rebased.isEmpty, "\(then)")
            #expect(result.state == expected, "\(then)")
        }
        // An add at the removed element's index still inserts there, before what followed it.
        let insert = try run(base, first: removeY, then: #"[{"op":"add","path":"/cart/1","value":{"id":"n"}}]"#)
        #expect(insert.state == (try json(#"{"cart":[{"id":"x"},{"id":"n"},{"id":"z"}]}"#)))
        // A move into the removed element takes its value out with it.
        let into = try run(#"{"cart":[{"id":"x"},{"id":"y","tags":[]}],"spare":1}"#, first: removeY,
                           then: #"[{"op":"move","from":"/spare","path":"/cart/1/tags/-"}]"#)
        #expect(into.rebased == (try ops(#"[{"op":"remove","path":"/spare"}]"#)))
    }

    @Test func aTestOfARemovedElementFailsThePatchAndOfAShiftedOneFollowsIt() throws {
        #expect(throws: PatchError.testFailed(op: 0, path: "/cart/1")) {
            try run(#"{"cart":["x","y"]}"#, first: #"[{"op":"remove","path":"/cart/1"}]"#,
                    then: #"[{"op":"test","path":"/cart/1","value":"y"},{"op":"remove","path":"/cart/1"}]"#)
        }
        let shifted = try run(#"{"cart":["x","y"]}"#, first: #"[{"op":"add","path":"/cart/0","value":"n"}]"#,
                              then: #"[{"op":"test","path":"/cart/1","value":"y"},{"op":"remove","path":"/cart/1"}]"#)
        #expect(shifted.state == (try json(#"{"cart":["n","x"]}"#)))
    }

    @Test func indexesInsideNestedArraysShiftWithTheirAncestors() throws {
        let result = try run(#"{"lists":[{"items":[1,2]},{"items":[3]}]}"#, first: #"[{"op":"remove","path":"/lists/0"}]"#,
                             then: #"[{"op":"add","path":"/lists/1/items/0","value":0},{"op":"remove","path":"/lists/1/items/1"}]"#)
        #expect(result.state == (try json(#"{"lists":[{"items":[0]}]}"#)))
        let moved = try run(#"{"cart":["x","y","z","w"]}"#, first: #"[{"op":"add","path":"/cart/0","value":"n"}]"#,
                            then: #"[{"op":"move","from":"/cart/3","path":"/cart/0"}]"#)
        // Moved to the index where the other patch inserted: after that insert, as for any insert.
        #expect(moved.state == (try json(#"{"cart":["n","w","x","y","z"]}"#)))
    }

    @Test func objectMembersNamedLikeIndexesNeverShift() throws {
        let result = try run(#"{"byID":{"1":"a","2":"b"},"list":["p","q"]}"#,
                             first: #"[{"op":"remove","path":"/byID/1"},{"op":"remove","path":"/list/0"}]"#,
                             then: #"[{"op":"set","path":"/byID/2","value":"c"}]"#)
        #expect(result.state == (try json(#"{"byID":{"2":"c"},"list":["q"]}"#)))
        #expect(result.rebased == (try ops(#"[{"op":"set","path":"/byID/2","value":"c"}]"#)))
    }

    @Test func theEditsAreRewrittenForTheAuthorsNextPatch() throws {
        // Another participant removes x; this one, not knowing, inserts n before x and then removes x
        // (at index 1, after its own insert).
        var document = try #require(Document(try json(#"{"cart":["x","y"]}"#)))
        var edits: [ArrayEdit] = []
        try document.apply(try ops(#"[{"op":"remove","path":"/cart/0"}]"#), edits: &edits)
        var changes = [edits]
        try document.apply(try PatchRebase.rebase(try ops(#"[{"op":"add","path":"/cart/0","value":"n"}]"#), over: &changes))
        #expect(changes == [[ArrayEdit(.remove, array: [.member("cart")], index: 1)]])
        let second = try PatchRebase.rebase(try ops(#"[{"op":"remove","path":"/cart/1"}]"#), over: &changes)
        #expect(second.isEmpty)
        try document.apply(second)
        #expect(document.root == (try json(#"{"cart":["n","y"]}"#)))
    }

    @Test func replacingAContainerDropsTheEditsInsideIt() throws {
        var changes = [[ArrayEdit(.insert, array: [.member("cart")], index: 0),
                        ArrayEdit(.insert, array: [.member("lists"), .element(2), .member("items")], index: 0)]]
        let rebased = try PatchRebase.rebase(try ops(#"[{"op":"set","path":"/cart","value":[]},{"op":"add","path":"/cart/0","value":1},{"op":"remove","path":"/lists/2"}]"#),
                                             over: &changes)
        #expect(rebased == (try ops(#"[{"op":"set","path":"/cart","value":[]},{"op":"add","path":"/cart/0","value":1},{"op":"remove","path":"/lists/2"}]"#)))
        #expect(changes == [[]])
        var root = [[ArrayEdit(.insert, array: [.member("cart")], index: 0)]]
        _ = try PatchRebase.rebase(try ops(#"[{"op":"set","path":"","value":{}}]"#), over: &root)
        #expect(root == [[]])
    }

    @Test func aRefusedRebaseLeavesTheChangesAsTheyWere() throws {
        let before = [[ArrayEdit(.remove, array: [.member("cart")], index: 0)]]
        var changes = before
        #expect(throws: PatchError.self) {
            try PatchRebase.rebase(try ops(#"[{"op":"add","path":"/cart/0","value":1},{"op":"test","path":"/cart/1","value":"x"}]"#), over: &changes)
        }
        // The add had rewritten the removal to index 1 before the test of the removed element failed.
        #expect(changes == before)
    }

    /// Intent, against a model that follows elements by identity: an author's op on the state it saw,
    /// rebased over random concurrent array changes, acts on the same elements.
    @Test(arguments: 0..<8)
    func rebasedOpsActOnTheElementsTheirAuthorSaw(batch: Int) throws {
        var random = SplitMix64(seed: UInt64(batch) &* 0x9E37_79B9_7F4A_7C15 &+ 5)
        for _ in 0..<400 {
            let count = Int.random(in: 0..<6, using: &random)
            let view = (0..<count).map { "t\($0)" }
            let base = JSONValue.object(["cart": .array(view.map { .object(["id": .string($0), "n": 0]) })])
            var document = try #require(Document(base))
            // The concurrent change: inserts, removals and element writes, applied first.
            var first: [PatchOp] = []
            var shadow = view
            var touched: Set<String> = []
            for step in 0..<Int.random(in: 1..<4, using: &random) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    let at = Int.random(in: 0...shadow.count, using: &random)
                    shadow.insert("a\(step)", at: at)
                    first.append(.add(JSONPointer(tokens: ["cart", String(at)]), .object(["id": .string("a\(step)"), "n": 0])))
                case 1 where !shadow.isEmpty:
                    let at = Int.random(in: 0..<shadow.count, using: &random)
                    touched.insert(shadow.remove(at: at))
                    first.append(.remove(JSONPointer(tokens: ["cart", String(at)])))
                default:
                    first.append(.add(JSONPointer(tokens: ["cart", "-"]), .object(["id": .string("e\(step)"), "n": 0])))
                    shadow.append("e\(step)")
                }
            }
            var edits: [ArrayEdit] = []
            try document.apply(first, edits: &edits)
            let afterFirst = document.root
            // The author's op, on the view it saw.
            let at = Int.random(in: 0...count, using: &random)
            let op: PatchOp
            switch Int.random(in: 0..<3, using: &random) {
            case 0: op = .add(JSONPointer(tokens: ["cart", String(at)]), .object(["id": "mine", "n": 0]))
            case 1 where at < count: op = .remove(JSONPointer(tokens: ["cart", String(at)]))
            default:
                guard at < count else { continue }
                op = .set(JSONPointer(tokens: ["cart", String(at), "n"]), 9)
            }
            var changes = [edits]
            let rebased = try PatchRebase.rebase([op], over: &changes)
            try document.apply(rebased)
            let ids = Self.ids(document.root)
            let survivors = view.filter { !touched.contains($0) }
            let context = "view \(view), first \(first), op \(op) → \(rebased), result \(ids)"
            switch op {
            case .add:
                #expect(ids.filter { $0 == "mine" }.count == 1, "\(context)")
                let position = ids.firstIndex(of: "mine") ?? 0
                for (index, id) in view.enumerated() where survivors.contains(id) {
                    let before = (ids.firstIndex(of: id) ?? 0) < position
                    #expect(before == (index < at), "\(id) on the wrong side: \(context)")
                }
            case .remove:
                #expect(!ids.contains(view[at]), "\(context)")
                #expect(ids == Self.ids(afterFirst).filter { $0 != view[at] }, "\(context)")
            default:
                let numbers = Self.numbers(document.root)
                for id in ids { #expect(numbers[id] == (survivors.contains(view[at]) && id == view[at] ? 9 : 0), "\(context)") }
            }
        }
    }

    private static func ids(_ root: JSONValue) -> [String] {
        guard case .object(let members) = root, case .array(let items)? = members["cart"] else { return [] }
        return items.compactMap { if case .object(let item) = $0, case .string(let id)? = item["id"] { id } else { nil } }
    }

    private static func numbers(_ root: JSONValue) -> [String: Double] {
        guard case .object(let members) = root, case .array(let items)? = members["cart"] else { return [:] }
        var result: [String: Double] = [:]
        for case .object(let item) in items {
            if case .string(let id)? = item["id"], case .number(let n)? = item["n"] { result[id] = n }
        }
        return result
    }
}
