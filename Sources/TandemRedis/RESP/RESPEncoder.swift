/// Writes commands and values in RESP. Commands are always arrays of bulk strings, the form every
/// Redis version accepts, so arguments are binary-safe.
package enum RESPEncoder {
    /// Appends one command (`["SET", "key", "value"]`) to `bytes`.
    package static func command(_ arguments: [RedisArgument], into bytes: inout [UInt8]) {
        header(UInt8(ascii: "*"), arguments.count, into: &bytes)
        for argument in arguments {
            header(UInt8(ascii: "$"), argument.bytes.count, into: &bytes)
            bytes.append(contentsOf: argument.bytes)
            bytes.append(contentsOf: crlf)
        }
    }

    /// The bytes of one command.
    package static func command(_ arguments: [RedisArgument]) -> [UInt8] {
        var bytes: [UInt8] = []
        command(arguments, into: &bytes)
        return bytes
    }

    /// Appends any value (the server side of the protocol; used to test the parser by round trip).
    package static func encode(_ value: RESPValue, into bytes: inout [UInt8]) {
        switch value {
        case .simpleString(let text): line(UInt8(ascii: "+"), text, into: &bytes)
        case .error(let text): line(UInt8(ascii: "-"), text, into: &bytes)
        case .integer(let number): line(UInt8(ascii: ":"), String(number), into: &bytes)
        case .null: line(UInt8(ascii: "_"), "", into: &bytes)
        case .double(let number): line(UInt8(ascii: ","), number.isNaN ? "nan" : number == .infinity ? "inf" : number == -.infinity ? "-inf" : "\(number)", into: &bytes)
        case .boolean(let flag): line(UInt8(ascii: "#"), flag ? "t" : "f", into: &bytes)
        case .bigNumber(let text): line(UInt8(ascii: "("), text, into: &bytes)
        case .bulkString(let payload): blob(UInt8(ascii: "$"), payload, into: &bytes)
        case .verbatim(let format, let text): blob(UInt8(ascii: "="), Array(format.utf8) + [UInt8(ascii: ":")] + text, into: &bytes)
        case .array(let values): aggregate(UInt8(ascii: "*"), values, into: &bytes)
        case .set(let values): aggregate(UInt8(ascii: "~"), values, into: &bytes)
        case .push(let values): aggregate(UInt8(ascii: ">"), values, into: &bytes)
        case .map(let pairs):
            header(UInt8(ascii: "%"), pairs.count, into: &bytes)
            for pair in pairs {
                encode(pair.key, into: &bytes)
                encode(pair.value, into: &bytes)
            }
        }
    }

    private static let crlf: [UInt8] = [13, 10]

    private static func header(_ marker: UInt8, _ count: Int, into bytes: inout [UInt8]) {
        line(marker, String(count), into: &bytes)
    }

    private static func line(_ marker: UInt8, _ text: String, into bytes: inout [UInt8]) {
        bytes.append(marker)
        bytes.append(contentsOf: text.utf8)
        bytes.append(contentsOf: crlf)
    }

    private static func blob(_ marker: UInt8, _ payload: [UInt8], into bytes: inout [UInt8]) {
        header(marker, payload.count, into: &bytes)
        bytes.append(contentsOf: payload)
        bytes.append(contentsOf: crlf)
    }

    private static func aggregate(_ marker: UInt8, _ values: [RESPValue], into bytes: inout [UInt8]) {
        header(marker, values.count, into: &bytes)
        for value in values { encode(value, into: &bytes) }
    }
}
