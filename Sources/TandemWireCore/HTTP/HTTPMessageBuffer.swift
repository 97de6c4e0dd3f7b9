/// Received bytes of an HTTP/1.x connection, split into message heads and bodies.
///
/// Shared by the request and response parsers. Searching for the end of the head resumes
/// where the last search stopped, so feeding one byte at a time stays linear.
struct HTTPMessageBuffer: Sendable {
    private static let cr: UInt8 = 0x0D
    private static let lf: UInt8 = 0x0A

    private var bytes: [UInt8] = []
    private var start = 0
    /// Index up to which the current head has been searched for its end.
    private var scanned = 0

    var count: Int { bytes.count - start }

    mutating func append(_ data: UnsafeRawBufferPointer) {
        if start > 0 && start >= count {
            bytes.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
        bytes.append(contentsOf: data)
    }

    /// Removes and returns the next head (start line and header lines, without the blank
    /// line that ends it), or nil when it is not complete yet. Empty lines before a head are
    /// skipped (RFC 9112 §2.2). Throws when a line ends in a bare LF or the head grows beyond
    /// `limit` bytes.
    mutating func takeHead(limit: Int) throws(HTTPParseError) -> ArraySlice<UInt8>? {
        while count >= 2 && bytes[start] == Self.cr && bytes[start + 1] == Self.lf {
            start += 2
            scanned = max(scanned, start)
        }
        var index = max(scanned, start)
        while index < bytes.count {
            if bytes[index] == Self.lf {
                guard index > start, bytes[index - 1] == Self.cr else { throw .invalidLineEnding }
                if index - start >= 3 && bytes[index - 2] == Self.lf {
                    let end = index + 1
                    guard end - start <= limit else { throw .headersTooLarge(limit: limit) }
                    let head = bytes[start..<(index - 3)]
                    start = end
                    scanned = end
                    return head
                }
            }
            index += 1
        }
        scanned = index
        guard count <= limit else { throw .headersTooLarge(limit: limit) }
        return nil
    }

    /// Removes and returns the next `length` bytes; the caller checked `count >= length`.
    mutating func take(_ length: Int) -> [UInt8] {
        let taken = Array(bytes[start..<(start + length)])
        start += length
        scanned = max(scanned, start)
        return taken
    }

    /// Removes and returns everything buffered.
    mutating func takeAll() -> [UInt8] {
        take(count)
    }
}
