import Testing
import TandemProtocol

@Suite struct PatchOpTests {
    @Test func readsAndWritesTheWireForm() throws {
        let set = try PatchOp(json: try JSONValue.parse(#"{"op":"set","path":"/a~1b","value":[1],"extra":true}"#))
        #expect(set == .set(JSONPointer(tokens: ["a/b"]), [1]))
        let remove = try PatchOp(json: try JSONValue.parse(#"{"path":"/x","op":"remove"}"#))
        #expect(remove == .remove(JSONPointer(tokens: ["x"])))

        var out: [UInt8] = []
        PatchOp.write([set, remove], into: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"[{"op":"set","path":"/a~1b","value":[1]},{"op":"remove","path":"/x"}]"#)
        #expect(try PatchOp.list(from: JSONValue.parse(out)) == [set, remove])
        #expect(set.jsonValue == ["op": "set", "path": "/a~1b", "value": [1]])
        #expect(try PatchOp(json: remove.jsonValue) == remove)
    }

    @Test func refusesMalformedOps() {
        func code(_ text: String) -> RejectCode? {
            do {
                _ = try PatchOp.list(from: try JSONValue.parse(text))
                return nil
            } catch let error as PatchError {
                return error.code
            } catch {
                return nil
            }
        }
        #expect(code(#"[{"op":"move","path":"/a"}]"#) == .invalidOp)
        #expect(code(#"[{"path":"/a"}]"#) == .invalidOp)
        #expect(code(#"[{"op":"set","path":"/a"}]"#) == .invalidOp)
        #expect(code(#"[5]"#) == .invalidOp)
        #expect(code(#"{"op":"set"}"#) == .invalidOp)
        #expect(code(#"[{"op":"set","path":"a","value":1}]"#) == .invalidPath)
        #expect(code(#"[{"op":"set","path":"/~2","value":1}]"#) == .invalidPath)
        #expect(code(#"[{"op":"remove","path":7}]"#) == .invalidPath)
        #expect(code(#"[{"op":"remove","path":"/ok"}]"#) == nil)
    }

    @Test func namesTheOpAtFault() throws {
        let list = try JSONValue.parse(#"[{"op":"set","path":"/a","value":1},{"op":"merge","path":"/b"}]"#)
        #expect(throws: PatchError.invalidOp(op: 1, reason: "unknown op \"merge\" (expected \"set\", \"remove\", \"add\", \"replace\", \"move\", \"copy\" or \"test\")")) {
            try PatchOp.list(from: list)
        }
    }
}
