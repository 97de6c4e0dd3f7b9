/// Why a byte sequence is not acceptable JSON, and where: `offset` is the zero-based byte
/// position of the first offending byte in the parsed input.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of defect the strict RFC 8259 parser reports.
    public enum Reason: Sendable, Hashable {
        /// The input ended inside a value (or was empty).
        case unexpectedEnd
        /// A byte that cannot start or continue the value at this point.
        case unexpectedByte(UInt8)
        /// A number that breaks the RFC 8259 grammar (leading zero, missing digits, `NaN`, …).
        case invalidNumber
        /// A backslash escape other than `\" \\ \/ \b \f \n \r \t \uXXXX`.
        case invalidEscape
        /// An unescaped control character (U+0000–U+001F) inside a string.
        case controlCharacterInString
        /// A byte sequence that is not well-formed UTF-8.
        case invalidUTF8
        /// A `\u` escape of a UTF-16 surrogate without its partner.
        case loneSurrogate
        /// Arrays/objects nested deeper than the allowed limit.
        case tooDeep(limit: Int)
        /// The same member name twice in one object (rejected to rule out ambiguous messages).
        case duplicateKey(String)
        /// Non-whitespace bytes after the complete top-level value.
        case trailingData
    }

    /// What is wrong.
    public let reason: Reason
    /// The zero-based byte offset where the problem was detected.
    public let offset: Int

    /// Creates an error for `reason` at byte `offset`.
    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// A one-line explanation naming the byte offset.
    public var description: String {
        let what: String
        switch reason {
        case .unexpectedEnd: what = "unexpected end of input"
        case .unexpectedByte(let byte):
            if byte >= 0x20 && byte < 0x7F {
                what = "unexpected character '\(Character(Unicode.Scalar(byte)))'"
            } else {
                what = "unexpected byte 0x\(String(byte, radix: 16, uppercase: true))"
            }
        case .invalidNumber: what = "invalid number (RFC 8259 grammar: no leading zeros, NaN or Infinity)"
        case .invalidEscape: what = "invalid escape sequence in string"
        case .controlCharacterInString: what = "unescaped control character in string (use \\uXXXX)"
        case .invalidUTF8: what = "invalid UTF-8"
        case .loneSurrogate: what = "unpaired UTF-16 surrogate in \\u escape"
        case .tooDeep(let limit): what = "nesting deeper than \(limit) levels"
        case .duplicateKey(let key): what = "duplicate object key \"\(key)\""
        case .trailingData: what = "data after the end of the JSON value"
        }
        return "invalid JSON at byte \(offset): \(what)"
    }
}
