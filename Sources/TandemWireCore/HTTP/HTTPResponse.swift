/// An HTTP/1.1 response to serialize (server side) or a parsed response head (client side,
/// with an empty body).
package struct HTTPResponse: Sendable, Equatable {
    /// The status code, e.g. 101 or 404.
    package var status: Int
    /// The reason phrase; defaults to the standard one for `status`.
    package var reason: String
    /// The protocol version of the status line.
    package var version: HTTPVersion
    /// The header fields in order.
    package var headers: HTTPHeaders
    /// The body.
    package var body: [UInt8]

    /// Creates a response; `reason` defaults to the standard phrase of `status`.
    package init(status: Int, reason: String? = nil, version: HTTPVersion = .http1_1, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.reason = reason ?? Self.reasonPhrase(for: status)
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// Appends the wire form to `output`. Adds `Content-Length` (also `0`) unless it is set or
    /// the status forbids a body (1xx, 204, 304), so keep-alive clients know where it ends.
    package func serialize(into output: inout [UInt8]) {
        var head = "\(version) \(status) \(reason)\r\n"
        for field in headers {
            head += "\(field.name): \(field.value)\r\n"
        }
        let bodyless = (100..<200).contains(status) || status == 204 || status == 304
        if !bodyless && !headers.contains(name: "Content-Length") {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        output.append(contentsOf: head.utf8)
        if !bodyless {
            output.append(contentsOf: body)
        }
    }

    /// The wire form as a new array.
    package var bytes: [UInt8] {
        var output: [UInt8] = []
        serialize(into: &output)
        return output
    }

    /// The standard reason phrase of the codes Tandem uses; "Unknown" otherwise.
    package static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 426: "Upgrade Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Unknown"
        }
    }
}
