/// Turns the bytes of a Redis connection into `RESPValue`s: feed bytes as they arrive, in chunks of
/// any size (one byte at a time included), then take complete values with `next()`.
///
/// A value is consumed only once all of it has arrived, so a partial value simply waits for more
/// bytes. After a protocol error every later call fails with `.failedBefore`: the stream has lost
/// its framing and the connection must be closed. A value type with a single owner (the connection's
/// loop thread).
package struct RESPParser: Sendable {
    /// The bounds applied to every value.
    package let limits: RESPLimits
    private var buffer: [UInt8] = []
    private var start = 0
    private var failed = false

    /// Creates a parser with `limits`.
    package init(limits: RESPLimits = RESPLimits()) {
        self.limits = limits
    }

    /// Bytes received but not yet consumed as a complete value.
    package var bufferedBytes: Int { buffer.count - start }

    /// Appends received bytes.
    package mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete value, or nil when more bytes are needed.
    /// - Throws: `RESPProtocolError` when the bytes are not RESP or exceed `limits`.
    package mutating func next() throws(RESPProtocolError) -> RESPValue? {
        guard !failed else { throw .failedBefore }
        var cursor = start
        do {
            guard let value = try parseValue(at: &cursor, depth: 0) else { return nil }
            start = cursor
            compactIfWorthwhile()
            return value
        } catch {
            failed = true
            throw error
        }
    }

    private mutating func compactIfWorthwhile() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            start = 0
        } else if start > 4096, start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }

    // MARK: - Parsing; nil means "incomplete", the cursor only matters when a value is returned.

    private func parseValue(at cursor: inout Int, depth: Int) throws(RESPProtocolError) -> RESPValue? {
        guard cursor < buffer.count else { return nil }
        let marker = buffer[cursor]
        cursor += 1
        switch marker {
        case UInt8(ascii: "+"):
            return try line(at: &cursor).map { .simpleString(String(decoding: $0, as: UTF8.self)) }
        case UInt8(ascii: "-"):
            return try line(at: &cursor).map { .error(String(decoding: $0, as: UTF8.self)) }
        case UInt8(ascii: ":"):
            guard let text = try line(at: &cursor) else { return nil }
            return .integer(try integer(text))
        case UInt8(ascii: "_"):
            guard let text = try line(at: &cursor) else { return nil }
            guard text.isEmpty else { throw .invalidNumber(String(decoding: text, as: UTF8.self)) }
            return .null
        case UInt8(ascii: "#"):
            guard let text = try line(at: &cursor) else { return nil }
            switch String(decoding: text, as: UTF8.self) {
            case "t": return .boolean(true)
            case "f": return .boolean(false)
            case let other: throw .invalidBoolean(other)
            }
        case UInt8(ascii: ","):
            guard let text = try line(at: &cursor) else { return nil }
            let string = String(decoding: text, as: UTF8.self)
            guard let value = Double(string) else { throw .invalidNumber(string) }
            return .double(value)
        case UInt8(ascii: "("):
            guard let text = try line(at: &cursor) else { return nil }
            let string = String(decoding: text, as: UTF8.self)
            let digits = string.hasPrefix("-") || string.hasPrefix("+") ? string.dropFirst() : Substring(string)
            guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) else { throw .invalidNumber(string) }
            return .bigNumber(string)
        case UInt8(ascii: "$"):
            guard let payload = try bulk(at: &cursor) else { return nil }
            return payload.map { .bulkString($0) } ?? .null
        case UInt8(ascii: "!"):
            guard let payload = try bulk(at: &cursor) else { return nil }
            return .error(String(decoding: payload ?? [], as: UTF8.self))
        case UInt8(ascii: "="):
            guard let payload = try bulk(at: &cursor) else { return nil }
            guard let payload, payload.count >= 4, payload[3] == UInt8(ascii: ":") else { throw .invalidVerbatim }
            return .verbatim(format: String(decoding: payload[0..<3], as: UTF8.self), text: Array(payload[4...]))
        case UInt8(ascii: "*"), UInt8(ascii: "~"), UInt8(ascii: ">"):
            guard let elements = try aggregate(at: &cursor, depth: depth, perElement: 1) else { return nil }
            guard let elements else { return .null }
            switch marker {
            case UInt8(ascii: "*"): return .array(elements)
            case UInt8(ascii: "~"): return .set(elements)
            default: return .push(elements)
            }
        case UInt8(ascii: "%"):
            guard let elements = try aggregate(at: &cursor, depth: depth, perElement: 2) else { return nil }
            guard let elements else { return .null }
            return .map(stride(from: 0, to: elements.count, by: 2).map { RESPPair(key: elements[$0], value: elements[$0 + 1]) })
        default:
            throw .unknownType(marker)
        }
    }

    /// The bytes up to the next CRLF (cursor moves past it), or nil when the CRLF has not arrived.
    private func line(at cursor: inout Int) throws(RESPProtocolError) -> ArraySlice<UInt8>? {
        var index = cursor
        let end = buffer.count
        while index + 1 < end {
            if buffer[index] == 13 {
                guard buffer[index + 1] == 10 else { throw .missingCRLF }
                let text = buffer[cursor..<index]
                cursor = index + 2
                return text
            }
            index += 1
        }
        if end - cursor > limits.maxLineBytes { throw .lineTooLong(limit: limits.maxLineBytes) }
        return nil
    }

    private func integer(_ text: ArraySlice<UInt8>) throws(RESPProtocolError) -> Int64 {
        let string = String(decoding: text, as: UTF8.self)
        guard let value = Int64(string) else { throw .invalidNumber(string) }
        return value
    }

    /// A length-prefixed payload: `.some(nil)` for a null (-1), nil when incomplete.
    private func bulk(at cursor: inout Int) throws(RESPProtocolError) -> [UInt8]?? {
        guard let text = try line(at: &cursor) else { return nil }
        let length = try integer(text)
        if length == -1 { return .some(nil) }
        guard length >= 0 else { throw .invalidNumber(String(length)) }
        guard length <= Int64(limits.maxBulkBytes) else { throw .bulkTooLarge(length: Int(clamping: length), limit: limits.maxBulkBytes) }
        let count = Int(length)
        guard buffer.count - cursor >= count + 2 else { return nil }
        guard buffer[cursor + count] == 13, buffer[cursor + count + 1] == 10 else { throw .missingCRLF }
        let payload = Array(buffer[cursor..<(cursor + count)])
        cursor += count + 2
        return .some(payload)
    }

    /// The elements of an aggregate whose header counts `perElement` values per item.
    private func aggregate(at cursor: inout Int, depth: Int, perElement: Int) throws(RESPProtocolError) -> [RESPValue]?? {
        guard let text = try line(at: &cursor) else { return nil }
        let count = try integer(text)
        if count == -1 { return .some(nil) }
        guard count >= 0 else { throw .invalidNumber(String(count)) }
        guard count <= Int64(limits.maxElements) else { throw .tooManyElements(count: Int(clamping: count), limit: limits.maxElements) }
        guard depth + 1 <= limits.maxDepth else { throw .tooDeep(limit: limits.maxDepth) }
        let total = Int(count) * perElement
        var elements: [RESPValue] = []
        // Do not trust the header for the allocation: reserve at most what the buffered bytes could hold.
        elements.reserveCapacity(min(total, (buffer.count - cursor) / 3))
        for _ in 0..<total {
            guard let element = try parseValue(at: &cursor, depth: depth + 1) else { return nil }
            elements.append(element)
        }
        return .some(elements)
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
