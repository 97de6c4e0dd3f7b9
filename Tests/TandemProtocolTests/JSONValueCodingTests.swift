import Foundation
import Testing
import TandemProtocol

@Suite struct JSONValueCodingTests {
    struct PageState: Codable, Equatable {
        var tabIndex: Int
        var contentOffset: Offset
        var addToCartSelected: Bool
        var marks: [String: Bool]
        var note: String?

        struct Offset: Codable, Equatable {
            var x: Double
            var y: Double
        }
    }

    private let state = PageState(
        tabIndex: 2, contentOffset: .init(x: 0, y: 1287.5), addToCartSelected: true, marks: ["video_playing": true], note: nil)

    @Test func encodesCodableValues() throws {
        let value = try JSONValueEncoder().encode(state)
        #expect(value == [
            "tabIndex": 2, "contentOffset": ["x": 0, "y": 1287.5], "addToCartSelected": true,
            "marks": ["video_playing": true],
        ])
    }

    @Test func decodesCodableValuesIgnoringUnknownMembers() throws {
        var value = try JSONValueEncoder().encode(state)
        if case .object(var members) = value {
            members["fieldFromANewerApp"] = ["x": 1]
            value = .object(members)
        }
        #expect(try JSONValueDecoder().decode(PageState.self, from: value) == state)
    }

    @Test func reportsShapeMismatches() {
        #expect(throws: JSONValueCodingError.self) {
            try JSONValueDecoder().decode(PageState.self, from: ["tabIndex": "two"])
        }
        #expect(throws: JSONValueCodingError.self) {
            try JSONValueDecoder().decode(Int.self, from: 1.5)
        }
        #expect(throws: JSONValueCodingError.self) { try JSONValueEncoder().encode(Double.nan) }
    }

    @Test func jsonValueIsCodableThroughFoundation() throws {
        let value: JSONValue = ["b": true, "n": 1, "f": 0.5, "s": "x", "a": [.null, false, 0], "o": .object([:])]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONValue.parse(data) == value)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(decoded == value)
        // Booleans stay booleans and numbers stay numbers.
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data("[true,1,0]".utf8)) == [true, 1, 0])
    }

    @Test func appliesKeyStrategies() throws {
        struct Item: Codable, Equatable { var itemCount: Int }
        var encoder = JSONValueEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let value = try encoder.encode(Item(itemCount: 3))
        #expect(value == ["item_count": 3])
        var decoder = JSONValueDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decoder.decode(Item.self, from: value) == Item(itemCount: 3))
    }
}
