import Testing
@testable import TandemRedis

@Suite("RESP parser")
struct RESPParserTests {
    /// Every kind of value, nested, as one byte stream.
    static let values: [RESPValue] = [
        .simpleString("OK"),
        .error("ERR unknown command"),
        .integer(-42),
        .integer(Int64.max),
        .bulkString(Array("hello\r\nworld".utf8)),
        .bulkString([]),
        .null,
        .array([]),
        .array([.integer(1), .array([.bulkString([0, 255, 13, 10]), .null, .array([.simpleString("deep")])])]),
        .double(3.5),
        .double(.infinity),
        .boolean(true),
        .boolean(false),
        .bigNumber("-3492890328409238509324850943850943825024385"),
        .verbatim(format: "txt", text: Array("Some string".utf8)),
        .map([RESPPair(key: .simpleString("first"), value: .integer(1)), RESPPair(key: .bulkString(Array("second".utf8)), value: .array([.null]))]),
        .set([.integer(1), .integer(2)]),
        .push([.bulkString(Array("message".utf8)), .bulkString(Array("channel".utf8))]),
    ]

    static func encoded(_ values: [RESPValue]) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in values { RESPEncoder.encode(value, into: &bytes) }
        return bytes
    }

    static func parseAll(_ bytes: [UInt8], chunk: Int, limits: RESPLimits = RESPLimits()) throws -> [RESPValue] {
        var parser = RESPParser(limits: limits)
        var values: [RESPValue] = []
        var offset = 0
        while offset < bytes.count {
            parser.append(bytes[offset..<min(offset + chunk, bytes.count)])
            offset += chunk
            while let value = try parser.next() { values.append(value) }
        }
        return values
    }

    @Test("every value type decodes the same whether fed at once or one byte at a time", arguments: [1, 2, 7, 1 << 20])
    func decodesEveryTypeInAnyChunking(chunk: Int) throws {
        let values = try Self.parseAll(Self.encoded(Self.values), chunk: chunk)
        #expect(values == Self.values)
    }

    @Test("RESP2 nulls (null bulk string and null array) decode to .null")
    func resp2Nulls() throws {
        #expect(try Self.parseAll(Array("$-1\r\n*-1\r\n".utf8), chunk: 1) == [.null, .null])
    }

    @Test("a partial value is not consumed until it is complete")
    func partialValueWaits() throws {
        var parser = RESPParser()
        parser.append(Array("*2\r\n$5\r\nhel".utf8))
        #expect(try parser.next() == nil)
        #expect(parser.bufferedBytes == 11)
        parser.append(Array("lo\r\n:7\r\n+next".utf8))
        #expect(try parser.next() == .array([.bulkString(Array("hello".utf8)), .integer(7)]))
        #expect(try parser.next() == nil)
        parser.append(Array("\r\n".utf8))
        #expect(try parser.next() == .simpleString("next"))
    }

    @Test("malformed input is a typed error and poisons the parser", arguments: [
        ("?abc\r\n", RESPProtocolError.unknownType(UInt8(ascii: "?"))),
        (":12x\r\n", .invalidNumber("12x")),
        ("$3\r\nabcXY", .missingCRLF),
        ("+OK\rX", .missingCRLF),
        ("*-2\r\n", .invalidNumber("-2")),
        ("#x\r\n", .invalidBoolean("x")),
        (",notanumber\r\n", .invalidNumber("notanumber")),
        ("=3\r\ntxt\r\n", .invalidVerbatim),
        ("(12a\r\n", .invalidNumber("12a")),
        (":99999999999999999999\r\n", .invalidNumber("99999999999999999999")),
    ])
    func malformedInput(text: String, expected: RESPProtocolError) {
        var parser = RESPParser()
        parser.append(Array(text.utf8))
        #expect(throws: expected) { try parser.next() }
        #expect(throws: RESPProtocolError.failedBefore) { try parser.next() }
    }

    @Test("size limits bound bulk strings, aggregates, nesting and lines before anything is buffered")
    func sizeLimits() {
        let limits = RESPLimits(maxBulkBytes: 10, maxElements: 3, maxDepth: 2, maxLineBytes: 16)
        let cases: [(String, RESPProtocolError)] = [
            ("$11\r\n", .bulkTooLarge(length: 11, limit: 10)),
            ("*4\r\n", .tooManyElements(count: 4, limit: 3)),
            ("%4\r\n", .tooManyElements(count: 4, limit: 3)),
            ("*1\r\n*1\r\n*1\r\n:1\r\n", .tooDeep(limit: 2)),
            ("+" + String(repeating: "a", count: 20), .lineTooLong(limit: 16)),
        ]
        for (text, expected) in cases {
            var parser = RESPParser(limits: limits)
            parser.append(Array(text.utf8))
            #expect(throws: expected, "\(text)") { try parser.next() }
        }
    }

    @Test("a huge announced aggregate does not allocate for its header")
    func hugeHeaderDoesNotAllocate() throws {
        var parser = RESPParser()
        parser.append(Array("*1000000\r\n:1\r\n".utf8))
        #expect(try parser.next() == nil)
    }

    @Test("commands are arrays of binary-safe bulk strings")
    func encodesCommands() throws {
        let bytes = RESPEncoder.command(["SET", "key", RedisArgument(bytes: [0, 13, 10]), 42])
        #expect(bytes == Array("*4\r\n$3\r\nSET\r\n$3\r\nkey\r\n$3\r\n\0\r\n\r\n$2\r\n42\r\n".utf8))
        #expect(try Self.parseAll(bytes, chunk: 1) == [.array([.bulkString(Array("SET".utf8)), .bulkString(Array("key".utf8)), .bulkString([0, 13, 10]), .bulkString(Array("42".utf8))])])
    }

    @Test("accessors read strings and integers from the shapes Redis uses")
    func accessors() {
        #expect(RESPValue.bulkString(Array("12".utf8)).integer == 12)
        #expect(RESPValue.integer(5).integer == 5)
        #expect(RESPValue.simpleString("x").string == "x")
        #expect(RESPValue.null.string == nil)
        #expect(RESPValue.set([.integer(1)]).array == [.integer(1)])
    }
}
