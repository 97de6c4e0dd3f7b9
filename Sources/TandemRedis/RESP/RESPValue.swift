/// One value of the Redis serialization protocol, RESP2 and RESP3 alike.
///
/// RESP2's null bulk string and null array, and RESP3's `_`, all decode to `.null`, so callers
/// never need to know which protocol version the server speaks.
package enum RESPValue: Sendable, Equatable {
    /// A simple string (`+OK`).
    case simpleString(String)
    /// An error reply (`-ERR …` or RESP3's blob error `!`): the server refused the command.
    case error(String)
    /// A signed 64-bit integer (`:`).
    case integer(Int64)
    /// A binary-safe bulk string (`$`).
    case bulkString([UInt8])
    /// An array (`*`); its elements may be any value, arrays included.
    case array([RESPValue])
    /// The absence of a value (`$-1`, `*-1`, or RESP3 `_`).
    case null
    /// A RESP3 double (`,`), `inf`/`-inf`/`nan` included.
    case double(Double)
    /// A RESP3 boolean (`#t` / `#f`).
    case boolean(Bool)
    /// A RESP3 big number (`(`), kept as its decimal text.
    case bigNumber(String)
    /// A RESP3 verbatim string (`=`) with its three-letter format (`txt`, `mkd`).
    case verbatim(format: String, text: [UInt8])
    /// A RESP3 map (`%`), in the order the server sent it.
    case map([RESPPair])
    /// A RESP3 set (`~`), in the order the server sent it.
    case set([RESPValue])
    /// A RESP3 out-of-band push (`>`), e.g. a pub/sub message.
    case push([RESPValue])

    /// The text of a simple string, bulk string or verbatim string (UTF-8, with invalid bytes repaired).
    package var string: String? {
        switch self {
        case .simpleString(let text): text
        case .bulkString(let bytes), .verbatim(_, let bytes): String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }

    /// The value as an integer: an integer reply, or a bulk/simple string holding a decimal integer
    /// (stream fields and hash values come back as strings).
    package var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .simpleString, .bulkString: string.flatMap { Int64($0) }
        default: nil
        }
    }

    /// The elements of an array, set or push.
    package var array: [RESPValue]? {
        switch self {
        case .array(let values), .set(let values), .push(let values): values
        default: nil
        }
    }
}

/// One key and its value in a RESP3 map.
package struct RESPPair: Sendable, Equatable {
    /// The key.
    package var key: RESPValue
    /// The value.
    package var value: RESPValue

    /// Creates a pair.
    package init(key: RESPValue, value: RESPValue) {
        self.key = key
        self.value = value
    }
}
