/// Incremental HTTP/1.1 request parser for the server side: feed bytes as they arrive and
/// pull complete requests, including pipelined ones, in order.
///
/// Enforces a limit on the request line plus headers (431) and on `Content-Length` bodies
/// (413, refused from the header before the body is buffered), checks the method token (400),
/// the version (505), `Host` (400) and refuses `Transfer-Encoding` (501). After an upgrade
/// request, ``takeBufferedBytes()`` hands over the bytes that followed it (the first frames).
/// After an error every call throws the same error: answer with ``HTTPParseError/response``
/// and close the connection.
package struct HTTPRequestParser: Sendable {
    /// Size limits, in bytes.
    package struct Limits: Sendable, Equatable {
        /// The largest request line plus headers (including line ends).
        package var maxHeaderBytes: Int
        /// The largest body announced by `Content-Length`.
        package var maxBodyBytes: Int

        /// Creates limits; the defaults are 16 KiB of head and 1 MiB of body.
        package init(maxHeaderBytes: Int = 16 * 1024, maxBodyBytes: Int = 1024 * 1024) {
            self.maxHeaderBytes = maxHeaderBytes
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// The limits this parser enforces.
    package let limits: Limits

    private var buffer = HTTPMessageBuffer()
    private var pending: (request: HTTPRequest, bodyLength: Int)?
    private var failure: HTTPParseError?

    /// Creates a parser at the start of a connection.
    package init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Bytes received and not yet returned in a request.
    package var bufferedByteCount: Int { buffer.count }

    /// Appends received bytes.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(bytes)
    }

    /// Appends received bytes.
    package mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer.append($0) }
    }

    /// Returns the next complete request, or nil when more bytes are needed.
    package mutating func nextRequest() throws(HTTPParseError) -> HTTPRequest? {
        if let failure { throw failure }
        do {
            return try parseNext()
        } catch {
            failure = error
            throw error
        }
    }

    /// Removes and returns the bytes buffered after the last returned request (after an
    /// upgrade, the start of the new protocol's stream).
    package mutating func takeBufferedBytes() -> [UInt8] {
        buffer.takeAll()
    }

    private mutating func parseNext() throws(HTTPParseError) -> HTTPRequest? {
        if pending == nil {
            guard let head = try buffer.takeHead(limit: limits.maxHeaderBytes) else { return nil }
            let (line, headers) = try HTTPHeadParser.parse(head)
            let request = try Self.request(line: line, headers: headers)
            pending = (request, try bodyLength(of: request))
        }
        guard let (request, length) = pending, buffer.count >= length else { return nil }
        pending = nil
        var complete = request
        complete.body = buffer.take(length)
        return complete
    }

    private static func request(line: ArraySlice<UInt8>, headers: HTTPHeaders) throws(HTTPParseError) -> HTTPRequest {
        let parts = HTTPHeadParser.splitStartLine(line, maxParts: 3)
        guard parts.count == 3, !parts[1].isEmpty else { throw .invalidStartLine }
        guard !parts[0].isEmpty, parts[0].allSatisfy(HTTPHeadParser.isTokenByte) else { throw .invalidMethod }
        guard parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .invalidStartLine }
        guard let version = HTTPVersion.parse(parts[2]) else { throw .invalidStartLine }
        guard version.major == 1 else { throw .unsupportedVersion(version) }
        if version != .http1_0 && headers.values(for: "Host").count != 1 { throw .invalidHost }
        return HTTPRequest(
            method: String(decoding: parts[0], as: UTF8.self),
            target: String(decoding: parts[1], as: UTF8.self),
            version: version,
            headers: headers
        )
    }

    private func bodyLength(of request: HTTPRequest) throws(HTTPParseError) -> Int {
        try HTTPHeadParser.contentLength(request.headers, limit: limits.maxBodyBytes) ?? 0
    }
}
