/// A strict RFC 8259 parser over UTF-8 bytes.
///
/// Rejects everything the RFC's grammar does not produce: trailing commas, leading zeros,
/// `NaN`/`Infinity`, unescaped control characters, invalid UTF-8, unpaired surrogate escapes,
/// a byte-order mark, and numbers outside the range of `Double`. Also rejects duplicate object
/// keys (the RFC leaves their meaning open; Tandem refuses ambiguous messages) and nesting
/// deeper than `maxDepth`. Works directly on the caller's bytes without copying them; a string
/// without escapes becomes a `String` in one step.
struct JSONParser {
    private let bytes: UnsafePointer<UInt8>
    private let count: Int
    private let maxDepth: Int
    private var index = 0
    private var depth = 0
    /// Reused for strings with escapes so each one does not allocate its own buffer.
    private var scratch: [UInt8] = []
    /// Members of the objects being parsed, innermost last: each object's dictionary is then
    /// created once at its final size instead of growing member by member.
    private var memberStack: [(key: String, value: JSONValue, offset: Int)] = []
    /// Elements of the arrays being parsed, innermost last (exactly sized arrays, as above).
    private var elementStack: [JSONValue] = []

    init(bytes: UnsafePointer<UInt8>, count: Int, maxDepth: Int) {
        self.bytes = bytes
        self.count = count
        self.maxDepth = maxDepth
    }

    /// Parses one complete JSON text: a value surrounded by optional whitespace.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index != count { throw JSONParseError(.trailingData, at: index) }
        return value
    }

    // MARK: - Values

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < count else { throw JSONParseError(.unexpectedEnd, at: index) }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case let byte: throw JSONParseError(.unexpectedByte(byte), at: index)
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let length = literal.utf8CodeUnitCount
        let expected = literal.utf8Start
        for offset in 0..<length {
            guard index + offset < count else { throw JSONParseError(.unexpectedEnd, at: index + offset) }
            let byte = bytes[index + offset]
            if byte != expected[offset] { throw JSONParseError(.unexpectedByte(byte), at: index + offset) }
        }
        index += length
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > maxDepth { throw JSONParseError(.tooDeep(limit: maxDepth), at: index) }
        index += 1
        skipWhitespace()
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        if index < count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .emptyObject
        }
        let base = memberStack.count
        while true {
            guard index < count else { throw JSONParseError(.unexpectedEnd, at: index) }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw JSONParseError(.unexpectedByte(bytes[index]), at: index)
            }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            memberStack.append((key, try parseValue(), keyOffset))
            skipWhitespace()
            if try endOfContainer(closing: UInt8(ascii: "}")) { break }
        }
        var members = [String: JSONValue](minimumCapacity: memberStack.count - base)
        for (key, value, offset) in memberStack[base...] where members.updateValue(value, forKey: key) != nil {
            throw JSONParseError(.duplicateKey(key), at: offset)
        }
        memberStack.removeSubrange(base...)
        return .object(members)
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        if index < count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array([])
        }
        let base = elementStack.count
        while true {
            elementStack.append(try parseValue())
            skipWhitespace()
            if try endOfContainer(closing: UInt8(ascii: "]")) { break }
        }
        let elements = Array(elementStack[base...])
        elementStack.removeSubrange(base...)
        return .array(elements)
    }

    /// After a member or element: consumes `,` (returning `false`, another item follows) or the
    /// closing bracket (returning `true`).
    private mutating func endOfContainer(closing: UInt8) throws(JSONParseError) -> Bool {
        guard index < count else { throw JSONParseError(.unexpectedEnd, at: index) }
        let byte = bytes[index]
        index += 1
        if byte == closing {
            depth -= 1
            return true
        }
        if byte == UInt8(ascii: ",") {
            skipWhitespace()
            return false
        }
        throw JSONParseError(.unexpectedByte(byte), at: index - 1)
    }

    private mutating func expect(_ expected: UInt8) throws(JSONParseError) {
        guard index < count else { throw JSONParseError(.unexpectedEnd, at: index) }
        guard bytes[index] == expected else { throw JSONParseError(.unexpectedByte(bytes[index]), at: index) }
        index += 1
    }

    private mutating func skipWhitespace() {
        while index < count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    // MARK: - Strings

    /// Parses a string starting at its opening quote. Strings without escapes are decoded
    /// straight from the input; others are assembled in `scratch`.
    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(start: bytes + start, count: index - start), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return try parseEscapedString(from: start) }
            try advanceCharacter(byte)
        }
        throw JSONParseError(.unexpectedEnd, at: index)
    }

    private mutating func parseEscapedString(from start: Int) throws(JSONParseError) -> String {
        scratch.removeAll(keepingCapacity: true)
        var runStart = start
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                scratch.append(contentsOf: UnsafeBufferPointer(start: bytes + runStart, count: index - runStart))
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                scratch.append(contentsOf: UnsafeBufferPointer(start: bytes + runStart, count: index - runStart))
                try parseEscape()
                runStart = index
                continue
            }
            try advanceCharacter(byte)
        }
        throw JSONParseError(.unexpectedEnd, at: index)
    }

    /// Steps over one unescaped character of a string, validating it as UTF-8.
    @inline(__always)
    private mutating func advanceCharacter(_ byte: UInt8) throws(JSONParseError) {
        if byte < 0x20 { throw JSONParseError(.controlCharacterInString, at: index) }
        if byte < 0x80 {
            index += 1
        } else {
            index += try utf8SequenceLength(at: index)
        }
    }

    /// Validates the multi-byte UTF-8 sequence at `position` (Unicode Table 3-7: no overlong
    /// forms, no surrogates, nothing above U+10FFFF) and returns its length.
    private func utf8SequenceLength(at position: Int) throws(JSONParseError) -> Int {
        let lead = bytes[position]
        let length: Int
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondLow = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondHigh = 0x9F
        case 0xF0: length = 4; secondLow = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondHigh = 0x8F
        default: throw JSONParseError(.invalidUTF8, at: position)
        }
        guard position + length <= count else { throw JSONParseError(.invalidUTF8, at: position) }
        let second = bytes[position + 1]
        guard second >= secondLow && second <= secondHigh else { throw JSONParseError(.invalidUTF8, at: position) }
        for offset in 2..<max(length, 2) where bytes[position + offset] & 0xC0 != 0x80 {
            throw JSONParseError(.invalidUTF8, at: position)
        }
        return length
    }

    /// Decodes the escape at `index` (a backslash) into `scratch`.
    private mutating func parseEscape() throws(JSONParseError) {
        let escapeOffset = index
        guard index + 1 < count else { throw JSONParseError(.unexpectedEnd, at: count) }
        let kind = bytes[index + 1]
        index += 2
        switch kind {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(kind)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try parseHex4())
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                guard index + 1 < count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw JSONParseError(.loneSurrogate, at: escapeOffset)
                }
                index += 2
                let low = UInt32(try parseHex4())
                guard low >= 0xDC00 && low <= 0xDFFF else { throw JSONParseError(.loneSurrogate, at: escapeOffset) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw JSONParseError(.loneSurrogate, at: escapeOffset)
            }
            appendUTF8(scalar)
        default:
            throw JSONParseError(.invalidEscape, at: escapeOffset)
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard index < count else { throw JSONParseError(.unexpectedEnd, at: count) }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONParseError(.invalidEscape, at: index)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    // MARK: - Numbers

    /// Powers of ten that are exact doubles, for the fast conversion path.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Parses a number per the RFC 8259 grammar. Short numbers (≤ 15 significant digits and a
    /// small exponent) are converted exactly with one multiplication or division; the rest go
    /// through the standard library's correctly rounded conversion.
    private mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var mantissa: UInt64 = 0
        var digitCount = 0
        guard index < count, isDigit(bytes[index]) else { throw JSONParseError(.invalidNumber, at: start) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < count && isDigit(bytes[index]) { throw JSONParseError(.invalidNumber, at: start) }
        } else {
            while index < count && isDigit(bytes[index]) {
                accumulate(bytes[index], into: &mantissa, digits: &digitCount)
                index += 1
            }
        }
        var fractionDigits = 0
        if index < count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < count, isDigit(bytes[index]) else { throw JSONParseError(.invalidNumber, at: start) }
            while index < count && isDigit(bytes[index]) {
                accumulate(bytes[index], into: &mantissa, digits: &digitCount)
                fractionDigits += 1
                index += 1
            }
        }
        var exponent = 0
        if index < count && (bytes[index] | 0x20) == UInt8(ascii: "e") {
            index += 1
            var exponentNegative = false
            if index < count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < count, isDigit(bytes[index]) else { throw JSONParseError(.invalidNumber, at: start) }
            while index < count && isDigit(bytes[index]) {
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        let scale = exponent - fractionDigits
        if digitCount <= 15 && scale >= -22 && scale <= 22 {
            let magnitude = scale >= 0
                ? Double(mantissa) * Self.exactPowersOfTen[scale]
                : Double(mantissa) / Self.exactPowersOfTen[-scale]
            return negative ? -magnitude : magnitude
        }
        let text = String(decoding: UnsafeBufferPointer(start: bytes + start, count: index - start), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw JSONParseError(.invalidNumber, at: start) }
        return value
    }

    /// Adds a digit to the exact mantissa; leading zeros of a fraction do not count as
    /// significant digits, and once more than 15 digits are seen the slow path takes over.
    @inline(__always)
    private func accumulate(_ byte: UInt8, into mantissa: inout UInt64, digits: inout Int) {
        if digits > 15 { return }
        mantissa = mantissa &* 10 &+ UInt64(byte - UInt8(ascii: "0"))
        if mantissa != 0 { digits += 1 }
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}

extension JSONValue {
    /// The nesting limit `parse` applies unless told otherwise.
    public static let defaultMaxDepth = 64

    /// Parses one JSON text from UTF-8 bytes (strict RFC 8259; see `JSONParseError` for every
    /// rejected form). Arrays and objects nested deeper than `maxDepth` are refused.
    public static func parse(
        _ bytes: some Collection<UInt8>, maxDepth: Int = JSONValue.defaultMaxDepth
    ) throws(JSONParseError) -> JSONValue {
        let outcome = bytes.withContiguousStorageIfAvailable { buffer in
            parseResult(UnsafeRawBufferPointer(buffer), maxDepth: maxDepth)
        }
        if let outcome { return try outcome.get() }
        return try Array(bytes).withUnsafeBytes { parseResult($0, maxDepth: maxDepth) }.get()
    }

    /// Parses one JSON text from raw UTF-8 bytes without copying them.
    public static func parse(
        _ buffer: UnsafeRawBufferPointer, maxDepth: Int = JSONValue.defaultMaxDepth
    ) throws(JSONParseError) -> JSONValue {
        try parseResult(buffer, maxDepth: maxDepth).get()
    }

    /// Parses one JSON text from a string's UTF-8 form.
    public static func parse(_ text: String, maxDepth: Int = JSONValue.defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        try parse(text.utf8, maxDepth: maxDepth)
    }

    private static func parseResult(_ buffer: UnsafeRawBufferPointer, maxDepth: Int) -> Result<JSONValue, JSONParseError> {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            return .failure(JSONParseError(.unexpectedEnd, at: 0))
        }
        var parser = JSONParser(bytes: base.assumingMemoryBound(to: UInt8.self), count: buffer.count, maxDepth: maxDepth)
        do {
            return .success(try parser.parseDocument())
        } catch {
            return .failure(error)
        }
    }
}
