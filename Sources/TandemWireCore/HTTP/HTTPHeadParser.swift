/// Parses the lines of an HTTP/1.x message head (RFC 9112 §2–§5) into a start line and
/// header fields. Strict: CRLF only, no obsolete line folding, no whitespace before the colon,
/// token field names, no control characters in values.
enum HTTPHeadParser {
    /// Splits `head` (without its final blank line) into the start line and the headers.
    static func parse(_ head: ArraySlice<UInt8>) throws(HTTPParseError) -> (startLine: ArraySlice<UInt8>, headers: HTTPHeaders) {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = head.startIndex
        var index = head.startIndex
        while index < head.endIndex {
            let byte = head[index]
            if byte == 0x0D {
                guard index + 1 < head.endIndex, head[index + 1] == 0x0A else { throw .invalidLineEnding }
                lines.append(head[lineStart..<index])
                index += 2
                lineStart = index
                continue
            }
            if byte == 0x0A { throw .invalidLineEnding }
            index += 1
        }
        lines.append(head[lineStart..<head.endIndex])

        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            let field = try parseField(line)
            headers.add(name: field.name, value: field.value)
        }
        return (lines[0], headers)
    }

    private static func parseField(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (name: String, value: String) {
        // A leading space or tab is obsolete line folding (RFC 9112 §5.2): refused.
        guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex else { throw .invalidHeader }
        let name = line[line.startIndex..<colon]
        guard name.allSatisfy(isTokenByte) else { throw .invalidHeader }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else { throw .invalidHeader }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    /// The body length a message's headers announce, or nil without `Content-Length`.
    /// - Throws: `.transferEncodingNotSupported` for `Transfer-Encoding` (chunked bodies are not implemented:
    ///   every Tandem peer sends `Content-Length`), `.invalidContentLength`, `.bodyTooLarge` beyond `limit`.
    static func contentLength(_ headers: HTTPHeaders, limit: Int) throws(HTTPParseError) -> Int? {
        if headers.contains(name: "Transfer-Encoding") { throw .transferEncodingNotSupported }
        let values = headers.listElements(for: "Content-Length")
        guard let first = values.first else { return nil }
        guard values.allSatisfy({ $0 == first }),
              first.utf8.count <= 18, first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let length = Int(first)
        else { throw .invalidContentLength }
        guard length <= limit else { throw .bodyTooLarge(limit: limit) }
        return length
    }

    /// tchar of RFC 9110 §5.6.2.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// Splits a start line at single spaces into at most `maxParts` parts (the last keeps
    /// any further spaces, as a reason phrase may).
    static func splitStartLine(_ line: ArraySlice<UInt8>, maxParts: Int) -> [ArraySlice<UInt8>] {
        line.split(separator: 0x20, maxSplits: maxParts - 1, omittingEmptySubsequences: false)
    }
}
