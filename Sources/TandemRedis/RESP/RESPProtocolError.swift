/// The bytes from the server are not valid RESP, or exceed `RESPLimits`. The connection that
/// received them cannot be trusted any more and is closed.
package enum RESPProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A value started with a byte that is no RESP type marker.
    case unknownType(UInt8)
    /// A length, count or number is not a valid decimal of its type.
    case invalidNumber(String)
    /// A line or payload was not terminated by CRLF.
    case missingCRLF
    /// A RESP3 boolean was neither `t` nor `f`.
    case invalidBoolean(String)
    /// A verbatim string lacks its `fmt:` prefix.
    case invalidVerbatim
    /// A bulk payload is longer than `RESPLimits.maxBulkBytes`.
    case bulkTooLarge(length: Int, limit: Int)
    /// An aggregate has more elements than `RESPLimits.maxElements`.
    case tooManyElements(count: Int, limit: Int)
    /// Aggregates are nested deeper than `RESPLimits.maxDepth`.
    case tooDeep(limit: Int)
    /// A line ran past `RESPLimits.maxLineBytes` without CRLF.
    case lineTooLong(limit: Int)
    /// The parser failed before and refuses more input.
    case failedBefore

    /// What is wrong, and that the server or something in between speaks something other than RESP.
    package var description: String {
        let hint = "; is the address a Redis server (not TLS, not another service)?"
        switch self {
        case .unknownType(let byte): return "RESP: unknown type byte 0x\(String(byte, radix: 16))" + hint
        case .invalidNumber(let text): return "RESP: invalid number \"\(text)\"" + hint
        case .missingCRLF: return "RESP: a value is not terminated by CRLF" + hint
        case .invalidBoolean(let text): return "RESP: invalid boolean \"\(text)\""
        case .invalidVerbatim: return "RESP: verbatim string without its format prefix"
        case .bulkTooLarge(let length, let limit): return "RESP: bulk string of \(length) bytes exceeds the limit of \(limit) (raise RESPLimits.maxBulkBytes)"
        case .tooManyElements(let count, let limit): return "RESP: aggregate of \(count) elements exceeds the limit of \(limit) (raise RESPLimits.maxElements)"
        case .tooDeep(let limit): return "RESP: aggregates nested deeper than \(limit)"
        case .lineTooLong(let limit): return "RESP: line longer than \(limit) bytes without CRLF" + hint
        case .failedBefore: return "RESP: the parser failed earlier; the connection must be closed"
        }
    }
}
