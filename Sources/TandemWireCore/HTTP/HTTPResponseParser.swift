/// Incremental parser of HTTP/1.1 responses for the client side: heads alone for an upgrade, or whole
/// responses with their bodies for plain requests.
///
/// ``nextResponseHead()`` returns the status line and headers with an empty body; the bytes after the head
/// (WebSocket frames the server sent right after its 101) stay buffered for ``takeBufferedBytes()``.
/// ``nextResponse(maxBodyBytes:)`` also reads the `Content-Length` body; a body without a length runs to the
/// end of the stream (``endOfStream(maxBodyBytes:)``). After an error every call throws the same error.
package struct HTTPResponseParser: Sendable {
    /// The largest status line plus headers accepted, in bytes.
    package let maxHeaderBytes: Int

    private var buffer = HTTPMessageBuffer()
    private var failure: HTTPParseError?
    /// A head whose body is still arriving.
    private var pendingHead: HTTPResponse?

    /// Creates a parser; the head limit defaults to 16 KiB.
    package init(maxHeaderBytes: Int = 16 * 1024) {
        self.maxHeaderBytes = maxHeaderBytes
    }

    /// Bytes received and not yet returned.
    package var bufferedByteCount: Int { buffer.count }

    /// Appends received bytes.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(bytes)
    }

    /// Appends received bytes.
    package mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer.append($0) }
    }

    /// Returns the response head once complete, or nil when more bytes are needed.
    package mutating func nextResponseHead() throws(HTTPParseError) -> HTTPResponse? {
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

    /// Returns the next complete response with its body, or nil when more bytes are needed (a body without
    /// `Content-Length` needs the end of the stream). Bodies beyond `maxBodyBytes` throw `.bodyTooLarge`.
    package mutating func nextResponse(maxBodyBytes: Int) throws(HTTPParseError) -> HTTPResponse? {
        if pendingHead == nil {
            guard let head = try nextResponseHead() else { return nil }
            pendingHead = head
        }
        guard var response = pendingHead else { return nil }
        do throws(HTTPParseError) {
            let bodyless = (100..<200).contains(response.status) || response.status == 204 || response.status == 304
            let length = bodyless ? 0 : try HTTPHeadParser.contentLength(response.headers, limit: maxBodyBytes)
            guard let length else {
                guard buffer.count <= maxBodyBytes else { throw .bodyTooLarge(limit: maxBodyBytes) }
                return nil
            }
            guard buffer.count >= length else { return nil }
            response.body = buffer.take(length)
            pendingHead = nil
            return response
        } catch {
            failure = error
            throw error
        }
    }

    /// The peer closed the stream: completes a response whose body ran to the close, or returns nil when no
    /// response was under way. A response cut short (fewer bytes than its `Content-Length`) throws.
    package mutating func endOfStream(maxBodyBytes: Int) throws(HTTPParseError) -> HTTPResponse? {
        if let complete = try nextResponse(maxBodyBytes: maxBodyBytes) { return complete }
        guard var response = pendingHead else {
            guard buffer.count == 0 else { throw HTTPParseError.invalidStartLine }
            return nil
        }
        guard !response.headers.contains(name: "Content-Length") else { throw HTTPParseError.invalidContentLength }
        response.body = buffer.takeAll()
        pendingHead = nil
        return response
    }

    /// Removes and returns the bytes buffered after the returned head.
    package mutating func takeBufferedBytes() -> [UInt8] {
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
