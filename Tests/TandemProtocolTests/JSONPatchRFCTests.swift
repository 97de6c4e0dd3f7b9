import Testing
import TandemProtocol

/// The RFC 6902 ops on the cases of the RFC's appendix A, and RFC 6901's pointer examples, with the
/// atomicity, limits and reject codes of a Tandem patch.
@Suite struct JSONPatchRFCTests {
    /// `patch` (JSON text) applied to `document` (JSON text); the tracked size is checked on the way.
    private func apply(_ document: String, _ patch: String, limits: PatchLimits = PatchLimits()) throws -> JSONValue {
        var doc = try #require(Document(try JSONValue.parse(document)))
        try doc.apply(try PatchOp.list(from: try JSONValue.parse(patch)), limits: limits)
        #expect(doc.byteCount == doc.root.serializedBytes().count)
        return doc.root
    }

    /// The reject code `patch` gets on `document`, nil when it applies; the document stays as it was.
    private func code(_ document: String, _ patch: String, limits: PatchLimits = PatchLimits()) throws -> RejectCode? {
        let doc = try #require(Document(try JSONValue.parse(document)))
        do {
            var copy = doc
            try copy.apply(try PatchOp.list(from: try JSONValue.parse(patch)), limits: limits)
            return nil
        } catch let error as PatchError {
            return error.code
        }
    }

    private func json(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

    @Test func addSetsAnObjectMemberAndInsertsIntoArrays() throws {
        #expect(try apply(#"{"foo":"bar"}"#, #"[{"op":"add","path":"/baz","value":"qux"}]"#) == json(#"{"baz":"qux","foo":"bar"}"#))
        #expect(try apply(#"{"foo":["bar","baz"]}"#, #"[{"op":"add","path":"/foo/1","value":"qux"}]"#) == json(#"{"foo":["bar","qux","baz"]}"#))
        #expect(try apply(#"{"foo":["bar"]}"#, #"[{"op":"add","path":"/foo/-","value":["abc","def"]}]"#) == json(#"{"foo":["bar",["abc","def"]]}"#))
        #expect(try apply(#"{"foo":[]}"#, #"[{"op":"add","path":"/foo/0","value":1},{"op":"add","path":"/foo/1","value":2}]"#) == json(#"{"foo":[1,2]}"#))
        #expect(try apply(#"{"foo":"bar"}"#, #"[{"op":"add","path":"/child","value":{"grandchild":{}}}]"#) == json(#"{"foo":"bar","child":{"grandchild":{}}}"#))
        // Members an op does not define are ignored.
        #expect(try apply(#"{"foo":"bar"}"#, #"[{"op":"add","path":"/baz","value":"qux","xyz":123}]"#) == json(#"{"foo":"bar","baz":"qux"}"#))
        // The root can be replaced by an object only.
        #expect(try apply(#"{"a":1}"#, #"[{"op":"add","path":"","value":{"b":2}}]"#) == json(#"{"b":2}"#))
        #expect(try code(#"{"a":1}"#, #"[{"op":"add","path":"","value":[1]}]"#) == .invalidOp)
    }

    @Test func addNeedsAParentAndAnIndexUpToTheCount() throws {
        #expect(try code(#"{"foo":"bar"}"#, #"[{"op":"add","path":"/baz/bat","value":"qux"}]"#) == .pathNotFound)
        #expect(try code(#"{"foo":[1,2]}"#, #"[{"op":"add","path":"/foo/3","value":0}]"#) == .indexOutOfRange)
        #expect(try code(#"{"foo":[1,2]}"#, #"[{"op":"add","path":"/foo/01","value":0}]"#) == .invalidPath)
        #expect(try code(#"{"foo":[1,2]}"#, #"[{"op":"add","path":"/foo/1e0","value":0}]"#) == .invalidPath)
        #expect(try code(#"{"foo":"bar"}"#, #"[{"op":"add","path":"/foo/x","value":0}]"#) == .invalidPath)
    }

    @Test func removeTakesOutMembersAndElements() throws {
        #expect(try apply(#"{"baz":"qux","foo":"bar"}"#, #"[{"op":"remove","path":"/baz"}]"#) == json(#"{"foo":"bar"}"#))
        #expect(try apply(#"{"foo":["bar","qux","baz"]}"#, #"[{"op":"remove","path":"/foo/1"}]"#) == json(#"{"foo":["bar","baz"]}"#))
        #expect(try apply(#"{"foo":["bar"]}"#, #"[{"op":"remove","path":"/foo/0"}]"#) == json(#"{"foo":[]}"#))
        // A missing member or index stays a no-op, as a repeated remove must be harmless.
        #expect(try apply(#"{"foo":[1]}"#, #"[{"op":"remove","path":"/gone"},{"op":"remove","path":"/foo/4"}]"#) == json(#"{"foo":[1]}"#))
    }

    @Test func replaceNeedsAnExistingTarget() throws {
        #expect(try apply(#"{"baz":"qux","foo":"bar"}"#, #"[{"op":"replace","path":"/baz","value":"boo"}]"#) == json(#"{"baz":"boo","foo":"bar"}"#))
        #expect(try apply(#"{"foo":[1,2]}"#, #"[{"op":"replace","path":"/foo/1","value":3}]"#) == json(#"{"foo":[1,3]}"#))
        #expect(try code(#"{"foo":"bar"}"#, #"[{"op":"replace","path":"/baz","value":1}]"#) == .pathNotFound)
        #expect(try code(#"{"foo":[1,2]}"#, #"[{"op":"replace","path":"/foo/2","value":1}]"#) == .indexOutOfRange)
        #expect(try code(#"{"foo":[1,2]}"#, #"[{"op":"replace","path":"/foo/-","value":1}]"#) == .invalidPath)
    }

    @Test func moveAndCopyTakeTheValueAtFrom() throws {
        #expect(try apply(#"{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}"#,
                          #"[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]"#)
            == json(#"{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}"#))
        #expect(try apply(#"{"foo":["all","grass","cows","eat"]}"#, #"[{"op":"move","from":"/foo/1","path":"/foo/3"}]"#)
            == json(#"{"foo":["all","cows","eat","grass"]}"#))
        #expect(try apply(#"{"a":{"b":1}}"#, #"[{"op":"move","from":"/a","path":"/a"}]"#) == json(#"{"a":{"b":1}}"#))
        #expect(try apply(#"{"a":[1,2]}"#, #"[{"op":"copy","from":"/a","path":"/b"},{"op":"add","path":"/b/-","value":3}]"#)
            == json(#"{"a":[1,2],"b":[1,2,3]}"#))
        #expect(try code(#"{"a":{"b":1}}"#, #"[{"op":"move","from":"/a","path":"/a/b/c"}]"#) == .invalidOp)
        #expect(try code(#"{"a":1}"#, #"[{"op":"move","from":"/missing","path":"/b"}]"#) == .pathNotFound)
        #expect(try code(#"{"a":1}"#, #"[{"op":"copy","from":"/missing","path":"/b"}]"#) == .pathNotFound)
        #expect(try code(#"{"a":1}"#, #"[{"op":"move","path":"/b"}]"#) == .invalidOp)
        // A move whose add fails after its remove leaves the value where it was.
        var doc = try #require(Document(try json(#"{"l":[1,2],"o":{}}"#)))
        let before = doc
        #expect(throws: PatchError.self) { try doc.apply([.move(from: try JSONPointer(parsing: "/l/0"), to: try JSONPointer(parsing: "/nope/x"))]) }
        #expect(doc == before)
    }

    @Test func testComparesByJSONEquality() throws {
        let document = #"{"baz":"qux","foo":["a",2,"c"],"o":{"x":1,"y":[true,null]}}"#
        #expect(try code(document, #"[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]"#) == nil)
        #expect(try code(document, #"[{"op":"test","path":"/foo/1","value":2.0}]"#) == nil)
        #expect(try code(document, #"[{"op":"test","path":"/o","value":{"y":[true,null],"x":1}}]"#) == nil)
        #expect(try code(document, #"[{"op":"test","path":"/baz","value":"bar"}]"#) == .testFailed)
        #expect(try code(document, #"[{"op":"test","path":"/foo","value":["a","c",2]}]"#) == .testFailed)
        #expect(try code(document, #"[{"op":"test","path":"/nothing","value":null}]"#) == .pathNotFound)
        // RFC 6902 A.14 and A.15: escapes are decoded in order, and a string is not a number.
        #expect(try code(#"{"/":9,"~1":10}"#, #"[{"op":"test","path":"/~01","value":10}]"#) == nil)
        #expect(try code(#"{"/":9,"~1":10}"#, #"[{"op":"test","path":"/~01","value":"10"}]"#) == .testFailed)
    }

    @Test func aFailingOpUndoesEveryEarlierOpOfItsPatch() throws {
        let document = #"{"cart":[{"id":1}],"price":249,"o":{"k":1}}"#
        let patch = #"""
            [{"op":"add","path":"/cart/-","value":{"id":2}},{"op":"move","from":"/o/k","path":"/cart/0/n"},
             {"op":"remove","path":"/cart/0"},{"op":"copy","from":"/price","path":"/was"},{"op":"test","path":"/price","value":199}]
            """#
        var doc = try #require(Document(try json(document)))
        let before = doc
        #expect(throws: PatchError.testFailed(op: 4, path: "/price")) {
            try doc.apply(try PatchOp.list(from: try self.json(patch)))
        }
        #expect(doc == before)
        // The same patch with a condition that holds: "add to cart only if the price is still 249".
        let holds = patch.replacingOccurrences(of: "199", with: "249")
        #expect(try apply(document, holds) == json(#"{"cart":[{"id":2}],"price":249,"o":{},"was":249}"#))
    }

    @Test func limitsCoverTheNewOps() throws {
        let limits = PatchLimits(maxOps: 10, maxDocument: 40, maxDepth: 3)
        #expect(try code(#"{"a":"0123456789"}"#, #"[{"op":"copy","from":"/a","path":"/b"},{"op":"copy","from":"/a","path":"/c"}]"#, limits: limits) == .tooLarge)
        #expect(try code(#"{"a":{"b":{"c":1}}}"#, #"[{"op":"copy","from":"/a","path":"/a/b/d"}]"#, limits: limits) == .tooDeep)
        #expect(try code(#"{"a":[]}"#, #"[{"op":"add","path":"/a/-","value":[[[1]]]}]"#, limits: limits) == .tooDeep)
        let many = "[" + Array(repeating: #"{"op":"test","path":"","value":{}}"#, count: 11).joined(separator: ",") + "]"
        #expect(try code("{}", many, limits: limits) == .tooManyOps)
    }

    @Test func theRFC6901ExamplesAddressWhatTheRFCSays() throws {
        let document = #"{"foo":["bar","baz"],"":0,"a/b":1,"c%d":2,"e^f":3,"g|h":4,"i\\j":5,"k\"l":6," ":7,"m~n":8}"#
        let cases: [(String, String)] = [
            ("", document), ("/foo", #"["bar","baz"]"#), ("/foo/0", #""bar""#), ("/", "0"), ("/a~1b", "1"), ("/c%d", "2"),
            ("/e^f", "3"), ("/g|h", "4"), (#"/i\\j"#, "5"), (#"/k\"l"#, "6"), ("/ ", "7"), ("/m~0n", "8"),
        ]
        for (path, value) in cases {
            let patch = #"[{"op":"test","path":""# + path + #"","value":"# + value + "}]"
            #expect(try code(document, patch) == nil, "\(path)")
        }
        #expect(try code(document, #"[{"op":"test","path":"/foo/-","value":"baz"}]"#) == .pathNotFound)
        #expect(try code(document, #"[{"op":"test","path":"foo","value":1}]"#) == .invalidPath)
        #expect(try code(document, #"[{"op":"test","path":"/m~2n","value":8}]"#) == .invalidPath)
    }

    @Test func everyOpRoundTripsThroughItsWireForm() throws {
        let a = try JSONPointer(parsing: "/a~1b"), b = try JSONPointer(parsing: "/list/-")
        let ops: [PatchOp] = [.set(a, 1), .remove(a), .add(b, ["x": true]), .replace(a, .null), .move(from: a, to: b),
                              .copy(from: b, to: a), .test(a, [1, "two"])]
        var out: [UInt8] = []
        PatchOp.write(ops, into: &out)
        #expect(try PatchOp.list(from: JSONValue.parse(out)) == ops)
        #expect(try ops.map { try PatchOp(json: $0.jsonValue) } == ops)
        #expect(String(decoding: out, as: UTF8.self).contains(#"{"op":"move","from":"/a~1b","path":"/list/-"}"#))
    }
}
