import Testing
import TandemProtocol

@Suite struct JSONPointerTests {
    @Test func parsesTokensWithEscapes() throws {
        #expect(try JSONPointer(parsing: "").tokens == [])
        #expect(try JSONPointer(parsing: "/").tokens == [""])
        #expect(try JSONPointer(parsing: "/marks/video_playing").tokens == ["marks", "video_playing"])
        #expect(try JSONPointer(parsing: "/a~1b/m~0n/~01").tokens == ["a/b", "m~n", "~1"])
        #expect(try JSONPointer(parsing: "//x/").tokens == ["", "x", ""])
        #expect(try JSONPointer(parsing: "/中文/😀").tokens == ["中文", "😀"])
    }

    @Test func refusesInvalidPointers() {
        #expect(throws: JSONPointerError.missingLeadingSlash("a/b")) { try JSONPointer(parsing: "a/b") }
        #expect(throws: JSONPointerError.invalidEscape("/a~2", offset: 2)) { try JSONPointer(parsing: "/a~2") }
        #expect(throws: JSONPointerError.invalidEscape("/a~", offset: 2)) { try JSONPointer(parsing: "/a~") }
        #expect(throws: JSONPointerError.invalidEscape("/~x/b", offset: 1)) { try JSONPointer(parsing: "/~x/b") }
    }

    @Test func descriptionRoundTrips() throws {
        for text in ["", "/", "/a~1b/m~0n", "/x/0/-", "/~0~1~01"] {
            #expect(try JSONPointer(parsing: text).description == text)
        }
        let pointer = JSONPointer(tokens: ["a/b", "~", "plain"])
        #expect(pointer.description == "/a~1b/~0/plain")
        #expect(try JSONPointer(parsing: pointer.description) == pointer)
        #expect(JSONPointer.root.appending("x").description == "/x")
    }

    @Test func arrayIndexesFollowRFC6901() {
        #expect(JSONPointer.arrayIndex("0") == 0)
        #expect(JSONPointer.arrayIndex("17") == 17)
        #expect(JSONPointer.arrayIndex("01") == nil)
        #expect(JSONPointer.arrayIndex("-") == nil)
        #expect(JSONPointer.arrayIndex("") == nil)
        #expect(JSONPointer.arrayIndex("1a") == nil)
        #expect(JSONPointer.arrayIndex("+1") == nil)
        #expect(JSONPointer.arrayIndex("99999999999999999999999") == nil)
    }

    @Test func looksUpValues() throws {
        let document: JSONValue = ["a": ["b": [10, ["c": "deep"]]], "x/y": 1]
        #expect(document[try JSONPointer(parsing: "/a/b/1/c")] == "deep")
        #expect(document[try JSONPointer(parsing: "/x~1y")] == 1)
        #expect(document[try JSONPointer(parsing: "")] == document)
        #expect(document[try JSONPointer(parsing: "/a/b/2")] == nil)
        #expect(document[try JSONPointer(parsing: "/a/b/01")] == nil)
        #expect(document[try JSONPointer(parsing: "/x~1y/z")] == nil)
    }
}
