import Foundation
import Testing
import TandemProtocol

@Suite struct DocumentTests {
    private func pointer(_ text: String) -> JSONPointer {
        do { return try JSONPointer(parsing: text) } catch { fatalError("bad test pointer \(text)") }
    }

    private func set(_ path: String, _ value: JSONValue) -> PatchOp { .set(pointer(path), value) }
    private func remove(_ path: String) -> PatchOp { .remove(pointer(path)) }

    private func document(_ value: JSONValue) throws -> Document { try #require(Document(value)) }

    /// Checks the tracked size against a full serialization.
    private func expectConsistent(_ document: Document, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(document.byteCount == document.root.serializedBytes().count, sourceLocation: sourceLocation)
    }

    @Test func setCreatesMissingParentObjects() throws {
        var doc = Document()
        try doc.apply([set("/marks/video/playing", true), set("/tabIndex", 1)])
        #expect(doc.root == ["marks": ["video": ["playing": true]], "tabIndex": 1])
        expectConsistent(doc)
    }

    @Test func setReplacesExistingValuesAndArrayElements() throws {
        var doc = try document(["list": [1, 2, 3], "a": ["b": 1]])
        try doc.apply([set("/list/1", "two"), set("/a/b", ["c": .null]), set("/list/0", [])])
        #expect(doc.root == ["list": [[], "two", 3], "a": ["b": ["c": .null]]])
        expectConsistent(doc)
    }

    @Test func setIntoArrayNeedsAnExistingIndex() throws {
        let doc = try document(["list": [1, 2]])
        for path in ["/list/2", "/list/-", "/list/01", "/list/x", "/list/5/a"] {
            #expect(throws: PatchError.self) { try doc.applying([set(path, 0)]) }
            do {
                _ = try doc.applying([set(path, 0)])
            } catch {
                #expect(error.code == .invalidPath, "\(path)")
                #expect(error.opIndex == 0)
            }
        }
    }

    @Test func setThroughAScalarIsInvalid() throws {
        let doc = try document(["a": 5, "s": "text"])
        do {
            _ = try doc.applying([set("/a/b", 1)])
            Issue.record("expected a failure")
        } catch {
            #expect(error == .invalidPath(op: 0, path: "/a/b", reason: "\"/a\" is a number, not an object or array"))
        }
        #expect(throws: PatchError.self) { try doc.applying([set("/s/0", 1)]) }
    }

    @Test func rootSetNeedsAnObject() throws {
        var doc = try document(["old": true])
        try doc.apply([set("", ["new": 1])])
        #expect(doc.root == ["new": 1])
        expectConsistent(doc)
        #expect(throws: PatchError.invalidOp(op: 0, reason: "the document root can only be set to an object")) {
            try doc.applying([set("", [1, 2])])
        }
    }

    @Test func removeDeletesMembers() throws {
        var doc = try document(["marks": ["video_playing": true, "coupon": 3], "tabIndex": 2])
        try doc.apply([remove("/marks/video_playing"), remove("/tabIndex")])
        #expect(doc.root == ["marks": ["coupon": 3]])
        expectConsistent(doc)
        try doc.apply([remove("/marks/coupon")])
        #expect(doc.root == ["marks": .object([:])])
        expectConsistent(doc)
    }

    @Test func removeOfMissingPathsIsANoOp() throws {
        var doc = try document(["a": 5, "list": [1], "o": ["k": 1]])
        let before = doc
        try doc.apply([
            remove("/missing"), remove("/o/missing"), remove("/missing/deeper"), remove("/a/b"),
            remove("/list/3"), remove("/list/x"), remove("/list/5/y"),
        ])
        #expect(doc == before)
        try doc.apply([remove("/o/k"), remove("/o/k")])
        #expect(doc.root == ["a": 5, "list": [1], "o": .object([:])])
    }

    @Test func removeTakesAnArrayElementOutAndRefusesTheRoot() throws {
        let doc = try document(["list": [1, 2, 3]])
        #expect(try doc.applying([remove("/list/0")]).root == ["list": [2, 3]])
        #expect(throws: PatchError.invalidPath(op: 1, path: "", reason: "the document root cannot be removed")) {
            try doc.applying([set("/x", 1), remove("")])
        }
    }

    @Test func patchesAreAtomic() throws {
        let original = try document(["keep": ["deep": [1, 2]], "list": [1, 2], "n": 1])
        var doc = original
        let ops = [
            set("/created/a/b", "new"),  // creates parents
            set("/keep/deep/0", "changed"),  // replaces an array element
            remove("/n"),  // removes a member
            set("/keep/other", true),  // adds a member
            set("", ["replaced": ["y": 1], "list": [1]]),  // replaces the root
            set("/replaced/x", 1),
            set("/list/9", 0),  // fails: no such index in the new root
        ]
        do {
            try doc.apply(ops)
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .invalidPath)
            #expect(error.opIndex == 6)
        }
        #expect(doc == original)
        expectConsistent(doc)
    }

    @Test func refusesTooManyOps() throws {
        var doc = Document()
        let ops = (0..<101).map { set("/k\($0)", 1) }
        #expect(throws: PatchError.tooManyOps(count: 101, limit: 100)) { try doc.apply(ops) }
        #expect(doc == Document())
        try doc.apply(Array(ops.prefix(100)))
        #expect(doc.root.objectValue?.count == 100)
        #expect(throws: PatchError.tooManyOps(count: 3, limit: 2)) {
            try doc.apply(Array(ops.prefix(3)), limits: PatchLimits(maxOps: 2))
        }
    }

    @Test func refusesDocumentsOverTheSizeLimit() throws {
        var doc = Document()
        let limits = PatchLimits(maxDocument: 20)
        // {"a":"0123456789"} is 18 bytes: allowed.
        try doc.apply([set("/a", "0123456789")], limits: limits)
        #expect(doc.byteCount == 18)
        // Adding ,"b":1 makes 24 bytes: refused, and the document is unchanged.
        #expect(throws: PatchError.tooLarge(size: 24, limit: 20)) { try doc.apply([set("/b", 1)], limits: limits) }
        #expect(doc.root == ["a": "0123456789"])
        #expect(doc.byteCount == 18)
        // Only the final size counts: grow past the limit, then shrink below it.
        try doc.apply([set("/big", .string(String(repeating: "x", count: 100))), remove("/big")], limits: limits)
        #expect(doc.root == ["a": "0123456789"])
    }

    @Test func tracksSizeExactlyAcrossRandomPatches() throws {
        var generator = SplitMix64(seed: 42)
        var doc = Document()
        let keys = ["a", "b", "c~", "d/e", "é", "\"q\""]
        let paths = keys.map { "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }
        for _ in 0..<400 {
            var ops: [PatchOp] = []
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let depth = Int.random(in: 1...3, using: &generator)
                let path = (0..<depth).map { _ in paths.randomElement(using: &generator)! }.joined()
                if Bool.random(using: &generator) {
                    ops.append(set(path, JSONValue.random(using: &generator, depth: 2)))
                } else {
                    ops.append(remove(path))
                }
            }
            let before = doc
            do {
                try doc.apply(ops)
            } catch {
                #expect(doc == before)
            }
            expectConsistent(doc)
        }
    }

}
