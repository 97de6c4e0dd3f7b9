/// An RFC 6901 JSON Pointer: a path of reference tokens into a JSON document, such as
/// `/marks/video_playing`. The empty pointer `""` denotes the whole document.
///
/// Tokens are stored unescaped; `description` re-escapes `~` as `~0` and `/` as `~1`, so
/// `JSONPointer(parsing: p.description) == p` for every pointer.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// The unescaped reference tokens, outermost first. Empty for the document root.
    public let tokens: [String]

    /// The pointer to the whole document.
    public static let root = JSONPointer(tokens: [])

    /// Creates a pointer from unescaped tokens (any strings are allowed).
    public init(tokens: [String]) {
        self.tokens = tokens
    }

    /// Parses the RFC 6901 string form: empty, or `/`-separated tokens in which `~0` stands
    /// for `~` and `~1` for `/`. A `~` followed by anything else, or a non-empty pointer not
    /// starting with `/`, is refused.
    public init(parsing text: String) throws(JSONPointerError) {
        var tokens: [String] = []
        var utf8 = text.utf8[...]
        if utf8.isEmpty {
            self.tokens = []
            return
        }
        guard utf8.first == UInt8(ascii: "/") else { throw .missingLeadingSlash(text) }
        utf8 = utf8.dropFirst()
        var token: [UInt8] = []
        var offset = 1
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            defer { offset += 1 }
            switch byte {
            case UInt8(ascii: "/"):
                tokens.append(String(decoding: token, as: UTF8.self))
                token.removeAll(keepingCapacity: true)
            case UInt8(ascii: "~"):
                switch iterator.next() {
                case UInt8(ascii: "0"): token.append(UInt8(ascii: "~"))
                case UInt8(ascii: "1"): token.append(UInt8(ascii: "/"))
                default: throw .invalidEscape(text, offset: offset)
                }
                offset += 1
            default:
                token.append(byte)
            }
        }
        tokens.append(String(decoding: token, as: UTF8.self))
        self.tokens = tokens
    }

    /// The RFC 6901 string form (`""` for the root).
    public var description: String {
        var out = ""
        for token in tokens {
            out.append("/")
            if token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) {
                for character in token.unicodeScalars {
                    switch character {
                    case "~": out.append("~0")
                    case "/": out.append("~1")
                    default: out.unicodeScalars.append(character)
                    }
                }
            } else {
                out.append(token)
            }
        }
        return out
    }

    /// `true` for the pointer to the whole document.
    public var isRoot: Bool { tokens.isEmpty }

    /// A pointer one level deeper.
    public func appending(_ token: String) -> JSONPointer {
        JSONPointer(tokens: tokens + [token])
    }

    /// The array index a token denotes under RFC 6901 (`0` or a digit string without leading
    /// zeros); `nil` for anything else, including `-` and numbers too large for `Int`.
    public static func arrayIndex(_ token: String) -> Int? {
        let utf8 = token.utf8
        guard let first = utf8.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return nil }
        if first == UInt8(ascii: "0") { return utf8.count == 1 ? 0 : nil }
        var value = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        return value
    }
}

/// Why a string is not an RFC 6901 JSON Pointer.
public enum JSONPointerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A non-empty pointer must start with `/`.
    case missingLeadingSlash(String)
    /// `~` must be followed by `0` or `1`; `offset` is the byte position of the `~`.
    case invalidEscape(String, offset: Int)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .missingLeadingSlash(let text):
            "invalid JSON Pointer \"\(text)\": must be empty or start with \"/\""
        case .invalidEscape(let text, let offset):
            "invalid JSON Pointer \"\(text)\": \"~\" at byte \(offset) must be followed by 0 or 1"
        }
    }
}
