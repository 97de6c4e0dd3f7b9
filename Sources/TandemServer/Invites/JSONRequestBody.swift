import TandemProtocol
import TandemWire

/// The JSON object body of an API request, checked strictly: `application/json` (or no body at all), an
/// object at the top, no field outside the endpoint's list, and typed accessors that name the bad field.
struct JSONRequestBody: Sendable {
    private let fields: [String: JSONValue]

    /// Reads `request`'s body, nested at most `maxDepth` levels. An empty body is an empty object.
    /// - Throws: `.unsupportedMediaType` for a body not declared as JSON, `.badJSON`, or `.invalidField` for a
    ///   non-object or a field not in `allowed`.
    init(_ request: HTTPRequest, allowed: Set<String>, maxDepth: Int = 8) throws(InviteAPIError) {
        guard !request.body.isEmpty else {
            fields = [:]
            return
        }
        let type = request.headers["Content-Type"]
        let mediaType = type.map { HTTPHeadersText.lowercasedASCII(String($0.prefix { $0 != ";" })).trimmingSpaces() }
        guard mediaType == "application/json" else { throw .unsupportedMediaType(type) }
        let value: JSONValue
        do {
            value = try JSONValue.parse(request.body, maxDepth: maxDepth)
        } catch {
            throw .badJSON(error.description)
        }
        guard case .object(let members) = value else { throw .invalidField("the body must be a JSON object") }
        if let unknown = members.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw .invalidField("unknown field \"\(unknown)\"; allowed: \(allowed.sorted().joined(separator: ", "))")
        }
        fields = members
    }

    /// A field as it is, or nil when absent.
    func value(_ key: String) -> JSONValue? { fields[key] }

    /// A string field, or nil when absent or null.
    func string(_ key: String, maxBytes: Int) throws(InviteAPIError) -> String? {
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let text)?:
            guard !text.isEmpty, text.utf8.count <= maxBytes, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw .invalidField("\"\(key)\" must be 1 to \(maxBytes) bytes of text without control characters")
            }
            return text
        default: throw .invalidField("\"\(key)\" must be a string")
        }
    }

    /// An integer field within `range`, or `defaultValue` when absent or null.
    func integer(_ key: String, default defaultValue: Int64, in range: ClosedRange<Int64>) throws(InviteAPIError) -> Int64 {
        switch fields[key] {
        case nil, .null?: return defaultValue
        case .number(let number)? where number.rounded(.towardZero) == number && number >= Double(range.lowerBound) && number <= Double(range.upperBound):
            return Int64(number)
        default: throw .invalidField("\"\(key)\" must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
    }
}

/// ASCII helpers for header values (locale-independent).
enum HTTPHeadersText {
    /// `text` with A–Z lowered, other characters unchanged.
    static func lowercasedASCII(_ text: String) -> String {
        String(decoding: text.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(scalars[first...last])
    }
}
