/// An HTTP version as it appears in a request or status line, e.g. `HTTP/1.1`.
package struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version digit.
    package var major: Int
    /// The minor version digit.
    package var minor: Int

    /// Creates a version.
    package init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0: connections close after each response unless `keep-alive` is asked for.
    package static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1: persistent connections by default; required for WebSocket upgrades.
    package static let http1_1 = HTTPVersion(major: 1, minor: 1)

    /// The wire form, e.g. `HTTP/1.1`.
    package var description: String { "HTTP/\(major).\(minor)" }

    /// Parses `HTTP/x.y` (exactly one digit each, RFC 9112 §2.3); nil when malformed.
    static func parse(_ bytes: ArraySlice<UInt8>) -> HTTPVersion? {
        let expected: [UInt8] = Array("HTTP/".utf8)
        guard bytes.count == 8, bytes.prefix(5).elementsEqual(expected) else { return nil }
        let major = bytes[bytes.startIndex + 5], dot = bytes[bytes.startIndex + 6], minor = bytes[bytes.startIndex + 7]
        guard (0x30...0x39).contains(major), dot == 0x2E, (0x30...0x39).contains(minor) else { return nil }
        return HTTPVersion(major: Int(major - 0x30), minor: Int(minor - 0x30))
    }
}
