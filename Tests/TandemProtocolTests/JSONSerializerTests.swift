import Testing
@testable import TandemProtocol

@Suite struct JSONSerializerTests {
    private func text(_ value: JSONValue) -> String { value.description }

    @Test func writesCompactJSON() {
        #expect(text(["a": [1, true, .null, "x"], "b": .object([:]), "c": []]) == #"{"a":[1,true,null,"x"],"b":{},"c":[]}"#)
    }

    @Test func sortsKeysByUTF8Bytes() {
        // Swift's String ordering and UTF-16 ordering would both differ from UTF-8 byte order
        // for some of these; canonical output must not depend on it.
        let value: JSONValue = ["b": 1, "a": 2, "B": 3, "é": 4, "z": 5, "\u{FF61}": 6, "😀": 7, "": 8]
        #expect(text(value) == #"{"":8,"B":3,"a":2,"b":1,"z":5,"é":4,"｡":6,"😀":7}"#)
    }

    @Test func writesIntegersWithoutFraction() {
        #expect(text([1.0, -0.0, 42, -17, 9_007_199_254_740_991, -9_007_199_254_740_991]) ==
            "[1,0,42,-17,9007199254740991,-9007199254740991]")
    }

    @Test func writesOtherNumbersInShortestRoundTripForm() throws {
        #expect(text([0.1, 1287.5, 1e-7, 9_007_199_254_740_992, 1e300, .number(.leastNonzeroMagnitude)]) ==
            "[0.1,1287.5,1e-07,9007199254740992.0,1e+300,5e-324]")
        for number in [0.1, 1.0 / 3.0, 2.0 / 3.0 * 1e-10, 123456.789, Double.ulpOfOne, Double.greatestFiniteMagnitude] {
            let bytes = JSONValue.number(number).serializedBytes()
            #expect(try JSONValue.parse(bytes) == .number(number))
        }
    }

    @Test func writesNonFiniteNumbersAsNull() {
        #expect(text([.number(.nan), .number(.infinity), .number(-.infinity)]) == "[null,null,null]")
        #expect(JSONValue.number(.nan).serializedByteCount == 4)
    }

    @Test func escapesStrings() {
        let value = JSONValue.string("q\"b\\s/\u{08}\u{0C}\n\r\t\u{01}\u{1F}\u{7F}é😀\u{2028}")
        #expect(text(value) == "\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\u{7F}é😀\u{2028}\"")
    }

    @Test func appendsToExistingBytes() {
        var out = Array("prefix:".utf8)
        JSONValue.string("x").serialize(into: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"prefix:"x""#)
    }

    @Test func roundTripsAndPredictsSizeForRandomValues() throws {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<300 {
            let value = JSONValue.random(using: &generator, depth: 4)
            let bytes = value.serializedBytes()
            #expect(value.serializedByteCount == bytes.count)
            let reparsed = try JSONValue.parse(bytes)
            #expect(reparsed == value)
            #expect(reparsed.serializedBytes() == bytes)
        }
    }
}

/// A small deterministic random source so property tests are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension JSONValue {
    /// A random value exercising every kind, escapes, non-ASCII text and both number forms.
    static func random(using generator: inout SplitMix64, depth: Int) -> JSONValue {
        let kind = Int.random(in: 0..<(depth > 0 ? 7 : 5), using: &generator)
        switch kind {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .number(Double(Int.random(in: -1_000_000...1_000_000, using: &generator)))
        case 3: return .number(Double.random(in: -1e6...1e6, using: &generator))
        case 4: return .string(randomText(using: &generator))
        case 5:
            return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in random(using: &generator, depth: depth - 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                members[randomText(using: &generator)] = random(using: &generator, depth: depth - 1)
            }
            return .object(members)
        }
    }

    static func randomText(using generator: inout SplitMix64) -> String {
        let pieces = ["a", "key", "\"", "\\", "\n", "\u{01}", "é", "中", "😀", "/", "~", " ", "tabIndex"]
        return (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }
}
