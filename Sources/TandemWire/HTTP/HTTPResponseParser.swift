/// Incremental parser of an HTTP/1.1 response head for the client side of an upgrade.
///
/// Returns the status line and headers as an ``HTTPResponse`` with an empty body; the bytes
/// after the head (WebSocket frames the server sent right after its 101) stay buffered for
/// ``takeBufferedBytes()``. After an error every call throws the same error.
public struct HTTPResponseParser: Sendable {
    /// The largest status line plus headers accepted, in bytes.
    public let maxHeaderBytes: Int

    private var buffer = HTTPMessageBuffer()
    private var failure: HTTPParseError?

    /// Creates a parser; the head limit defaults to 16 KiB.
    public init(maxHeaderBytes: Int = 16 * 1024) {
        self.maxHeaderBytes = maxHeaderBytes
    }

    /// Bytes received and not yet returned.
    public var bufferedByteCount: Int { buffer.count }

    /// Appends received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(bytes)
    }

    /// Appends received bytes.
    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer.append($0) }
    }

    /// Returns the response head once complete, or nil when more bytes are needed.
    public mutating func nextResponseHead() throws(HTTPParseError) -> HTTPResponse? {
        if let failure { throw failure }
        do {
            guard let head = try buffer.takeHead(limit: maxHeaderBytes) else { return nil }
            let (line, headers) = try HTTPHeadParser.parse(head)
            return try Self.response(line: line, headers: headers)
        } catch {
            failure = error
            throw error
        }
    }

    /// Removes and returns the bytes buffered after the returned head.
    public mutating func takeBufferedBytes() -> [UInt8] {
        buffer.takeAll()
    }

    private static func response(line: ArraySlice<UInt8>, headers: HTTPHeaders) throws(HTTPParseError) -> HTTPResponse {
        let parts = HTTPHeadParser.splitStartLine(line, maxParts: 3)
        guard parts.count >= 2, let version = HTTPVersion.parse(parts[0]) else { throw .invalidStartLine }
        guard version.major == 1 else { throw .unsupportedVersion(version) }
        let code = parts[1]
        guard code.count == 3, code.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let status = Int(String(decoding: code, as: UTF8.self)),
              status >= 100
        else { throw .invalidStartLine }
        let reason = parts.count == 3 ? String(decoding: parts[2], as: UTF8.self) : ""
        return HTTPResponse(status: status, reason: reason, version: version, headers: headers)
    }
}
