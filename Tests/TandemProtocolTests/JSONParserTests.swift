import Foundation
import Testing
@testable import TandemProtocol

@Suite struct JSONParserTests {
    private func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try JSONValue.parse(Array(text.utf8))
    }

    private func failure(_ bytes: [UInt8], maxDepth: Int = 64) -> JSONParseError? {
        do {
            _ = try JSONValue.parse(bytes, maxDepth: maxDepth)
            return nil
        } catch {
            return error
        }
    }

    private func failure(_ text: String) -> JSONParseError? { failure(Array(text.utf8)) }

    @Test func parsesEveryKindOfValue() throws {
        let value = try parse(#" {"a": [1, -2.5, 3e2, true, false, null], "b": {"c": "d"}, "e": "" } "#)
        #expect(value == ["a": [1, -2.5, 300, true, false, .null], "b": ["c": "d"], "e": ""])
    }

    @Test func parsesTopLevelScalars() throws {
        #expect(try parse("42") == 42)
        #expect(try parse(#""x""#) == "x")
        #expect(try parse("null") == .null)
        #expect(try parse("\t true \r\n") == true)
    }

    @Test func parsesEmptyContainers() throws {
        #expect(try parse("[]") == [])
        #expect(try parse("{ }") == .object([:]))
        #expect(try parse("[[[]]]") == [[[]]])
    }

    @Test func decodesEscapes() throws {
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{08}\u{0C}\n\r\t"))
        #expect(try parse(#""\u0041\u00e9\u4e2d""#) == "Aé中")
        #expect(try parse(#""\uD83D\uDE00 ok""#) == "😀 ok")
        #expect(try parse(#""\u0000""#) == .string("\u{0}"))
    }

    @Test func keepsRawUTF8() throws {
        #expect(try parse("\"héllo 中文 😀\"") == "héllo 中文 😀")
    }

    @Test func numbersMatchTheStandardLibraryConversion() throws {
        let samples = [
            "0", "-0", "1", "-1", "0.1", "0.5", "1.25e-3", "123456789012345", "1234567890123456789",
            "9007199254740993", "3.141592653589793", "2.2250738585072014e-308", "1.7976931348623157e308",
            "5e-324", "1E22", "1e23", "0.000001", "-12.5E+2", "4.35", "1287.5", "0.30000000000000004",
        ]
        for text in samples {
            let parsed = try parse(text)
            #expect(parsed == .number(Double(text)!), "\(text)")
        }
        #expect(try parse("-0").doubleValue?.sign == .minus)
    }

    @Test func rejectsTrailingCommas() {
        #expect(failure("[1,2,]") == JSONParseError(.unexpectedByte(UInt8(ascii: "]")), at: 5))
        #expect(failure(#"{"a":1,}"#) == JSONParseError(.unexpectedByte(UInt8(ascii: "}")), at: 7))
        #expect(failure("[,]")?.offset == 1)
    }

    @Test func rejectsNumbersOutsideTheGrammar() {
        for text in ["01", "-01", "1.", ".5", "-", "+1", "1e", "1e+", "0x10", "1.e3", "- 1"] {
            let error = failure(text)
            #expect(error?.reason == .invalidNumber || error?.reason == .unexpectedByte(UInt8(ascii: "+"))
                || error?.reason == .unexpectedByte(UInt8(ascii: ".")) || error?.reason == .trailingData, "\(text)")
            #expect(error != nil, "\(text)")
        }
        #expect(failure("01") == JSONParseError(.invalidNumber, at: 0))
        #expect(failure("[1, 02]") == JSONParseError(.invalidNumber, at: 4))
        #expect(failure("1e400") == JSONParseError(.invalidNumber, at: 0))
    }

    @Test func rejectsNaNAndInfinity() {
        #expect(failure("NaN") == JSONParseError(.unexpectedByte(UInt8(ascii: "N")), at: 0))
        #expect(failure("[Infinity]") == JSONParseError(.unexpectedByte(UInt8(ascii: "I")), at: 1))
        #expect(failure("-Infinity") == JSONParseError(.invalidNumber, at: 0))
    }

    @Test func rejectsControlCharactersInStrings() {
        #expect(failure("\"a\nb\"") == JSONParseError(.controlCharacterInString, at: 2))
        #expect(failure("\"a\\n\tb\"") == JSONParseError(.controlCharacterInString, at: 4))
        #expect(failure([0x22, 0x00, 0x22]) == JSONParseError(.controlCharacterInString, at: 1))
    }

    @Test func rejectsInvalidEscapes() {
        #expect(failure(#""\x""#) == JSONParseError(.invalidEscape, at: 1))
        #expect(failure(#""\u12G4""#) == JSONParseError(.invalidEscape, at: 5))
        #expect(failure(#""\u12""#)?.reason == .invalidEscape)
    }

    @Test func rejectsLoneSurrogates() {
        #expect(failure(#""\uD83D""#) == JSONParseError(.loneSurrogate, at: 1))
        #expect(failure(#""\uD83Dx""#) == JSONParseError(.loneSurrogate, at: 1))
        #expect(failure(#""a\uDE00""#) == JSONParseError(.loneSurrogate, at: 2))
        #expect(failure(#""\uD83D\u0041""#) == JSONParseError(.loneSurrogate, at: 1))
    }

    @Test func rejectsInvalidUTF8() {
        let cases: [[UInt8]] = [
            [0x22, 0xFF, 0x22],  // never valid
            [0x22, 0xC0, 0xAF, 0x22],  // overlong "/"
            [0x22, 0xE0, 0x80, 0xAF, 0x22],  // overlong
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // UTF-8 encoded surrogate
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x22, 0xC3, 0x22],  // truncated sequence
            [0x22, 0x80, 0x22],  // stray continuation byte
            [0x22, 0xE4, 0xB8],  // truncated at end of input
        ]
        for bytes in cases {
            #expect(failure(bytes) == JSONParseError(.invalidUTF8, at: 1), "\(bytes)")
        }
        // Also after an escape (the slow path).
        #expect(failure([0x22, 0x5C, 0x6E, 0xFF, 0x22]) == JSONParseError(.invalidUTF8, at: 3))
        // Outside strings, non-ASCII bytes are never valid.
        #expect(failure([0xEF, 0xBB, 0xBF, 0x31]) == JSONParseError(.unexpectedByte(0xEF), at: 0))
    }

    @Test func enforcesTheDepthLimit() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(try parse(ok).arrayValue != nil)
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(failure(deep) == JSONParseError(.tooDeep(limit: 64), at: 64))
        let objects = String(repeating: #"{"a":"#, count: 5) + "1" + String(repeating: "}", count: 5)
        #expect(failure(Array(objects.utf8), maxDepth: 4)?.reason == .tooDeep(limit: 4))
        // A hostile 100 000-deep input fails cleanly instead of overflowing the stack.
        #expect(failure(String(repeating: "[", count: 100_000))?.reason == .tooDeep(limit: 64))
    }

    @Test func rejectsDuplicateKeys() {
        #expect(failure(#"{"type":"ping","type":"patch"}"#) == JSONParseError(.duplicateKey("type"), at: 15))
    }

    @Test func rejectsTruncatedAndTrailingInput() {
        #expect(failure("") == JSONParseError(.unexpectedEnd, at: 0))
        #expect(failure("   ") == JSONParseError(.unexpectedEnd, at: 3))
        #expect(failure(#"{"a":"#) == JSONParseError(.unexpectedEnd, at: 5))
        #expect(failure(#"{"a":1"#) == JSONParseError(.unexpectedEnd, at: 6))
        #expect(failure(#""abc"#) == JSONParseError(.unexpectedEnd, at: 4))
        #expect(failure("tru") == JSONParseError(.unexpectedEnd, at: 3))
        #expect(failure("trux") == JSONParseError(.unexpectedByte(UInt8(ascii: "x")), at: 3))
        #expect(failure("1 2") == JSONParseError(.trailingData, at: 2))
        #expect(failure("{}}") == JSONParseError(.trailingData, at: 2))
        #expect(failure(#"{"a" 1}"#) == JSONParseError(.unexpectedByte(UInt8(ascii: "1")), at: 5))
        #expect(failure(#"{a:1}"#) == JSONParseError(.unexpectedByte(UInt8(ascii: "a")), at: 1))
        #expect(failure("[1 2]") == JSONParseError(.unexpectedByte(UInt8(ascii: "2")), at: 3))
    }

    @Test func parsesNonContiguousCollectionsAndRawBuffers() throws {
        let text = #"{"k":[1,"two"]}"#
        let expected: JSONValue = ["k": [1, "two"]]
        #expect(try JSONValue.parse(text.utf8.reversed().reversed()) == expected)
        #expect(try JSONValue.parse(text) == expected)
        #expect(try JSONValue.parse(Data(text.utf8)) == expected)
        let bytes = Array(text.utf8)
        #expect(try bytes.withUnsafeBytes { buffer throws(JSONParseError) in try JSONValue.parse(buffer) } == expected)
    }

    @Test func errorsDescribeTheOffset() {
        let error = JSONParseError(.unexpectedByte(UInt8(ascii: "]")), at: 5)
        #expect(error.description == "invalid JSON at byte 5: unexpected character ']'")
        #expect(JSONParseError(.tooDeep(limit: 64), at: 9).description.contains("deeper than 64"))
    }

    @Test func agreesWithFoundationOnValidDocuments() throws {
        let documents = [
            #"{"tabIndex":1,"contentOffset":{"x":0,"y":1287.5},"marks":{"a":true,"b":[1,2,3]},"title":"Größe \"x\""}"#,
            #"[0.1,1e-7,123456.789,-0.0,"\u00e9\ud83d\ude00",{"":null}]"#,
        ]
        for text in documents {
            let ours = try parse(text)
            let theirs = try JSONValue.parse(
                JSONSerialization.data(withJSONObject: JSONSerialization.jsonObject(with: Data(text.utf8)), options: [.sortedKeys]))
            #expect(ours == theirs)
        }
    }
}
