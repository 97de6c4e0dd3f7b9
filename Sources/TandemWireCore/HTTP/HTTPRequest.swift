/// A parsed (or to-be-sent) HTTP/1.x request.
package struct HTTPRequest: Sendable, Equatable {
    /// The method token, case-sensitive (e.g. `GET`).
    package var method: String
    /// The request target as sent, usually origin form (`/v1/sync?x=1`).
    package var target: String
    /// The protocol version.
    package var version: HTTPVersion
    /// The header fields in order.
    package var headers: HTTPHeaders
    /// The body (empty unless `Content-Length` announced one).
    package var body: [UInt8]

    /// Creates a request.
    package init(method: String, target: String, version: HTTPVersion = .http1_1, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// The target without its query string.
    package var path: String {
        String(target.prefix { $0 != "?" })
    }

    /// The query string after `?`, or nil when there is none.
    package var query: String? {
        guard let mark = target.firstIndex(of: "?") else { return nil }
        return String(target[target.index(after: mark)...])
    }

    /// Whether the connection stays open after the response: HTTP/1.1 unless
    /// `Connection: close`, HTTP/1.0 only with `Connection: keep-alive` (RFC 9112 §9.3).
    package var keepAlive: Bool {
        if headers.containsToken("close", in: "Connection") { return false }
        if version == .http1_0 { return headers.containsToken("keep-alive", in: "Connection") }
        return version.major == 1
    }

    /// Appends the request's wire form (request line, headers, blank line, body) to `output`.
    /// Adds `Content-Length` when there is a body and none was set.
    package func serialize(into output: inout [UInt8]) {
        var head = "\(method) \(target) \(version)\r\n"
        for field in headers {
            head += "\(field.name): \(field.value)\r\n"
        }
        if !body.isEmpty && !headers.contains(name: "Content-Length") {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        output.append(contentsOf: head.utf8)
        output.append(contentsOf: body)
    }
}
