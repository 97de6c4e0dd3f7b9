/// Why a received HTTP message was refused. Each case maps to the response status a server
/// answers with before closing the connection.
package enum HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request or status line is malformed.
    case invalidStartLine
    /// The method is not a valid token.
    case invalidMethod
    /// A header line is malformed (no colon, space before the colon, invalid name or value
    /// characters, obsolete line folding).
    case invalidHeader
    /// A line ended in a bare CR or LF instead of CRLF.
    case invalidLineEnding
    /// The request line and headers together exceed the limit (bytes).
    case headersTooLarge(limit: Int)
    /// The HTTP major version is not 1.
    case unsupportedVersion(HTTPVersion)
    /// An HTTP/1.1 request without exactly one `Host` header.
    case invalidHost
    /// `Content-Length` is not a decimal number, or several differ.
    case invalidContentLength
    /// The body is larger than the limit (bytes).
    case bodyTooLarge(limit: Int)
    /// `Transfer-Encoding` (chunked bodies) is not supported by Tandem's server.
    case transferEncodingNotSupported

    /// The HTTP status code the server answers with.
    package var status: Int {
        switch self {
        case .headersTooLarge: 431
        case .unsupportedVersion: 505
        case .bodyTooLarge: 413
        case .transferEncodingNotSupported: 501
        default: 400
        }
    }

    /// The response to send before closing the connection: the status, `Connection: close`
    /// and the description as a plain-text body.
    package var response: HTTPResponse {
        HTTPResponse(status: status, headers: ["Connection": "close", "Content-Type": "text/plain; charset=utf-8"], body: Array((description + "\n").utf8))
    }

    /// The same response with a JSON body `{"error": code, "message": description}`, for servers whose plain
    /// endpoints speak JSON.
    package var jsonResponse: HTTPResponse {
        .jsonError(status: status, error: code, message: description, headers: ["Connection": "close"])
    }

    /// A stable machine-readable name of the case, e.g. `body_too_large`.
    package var code: String {
        switch self {
        case .headersTooLarge: "headers_too_large"
        case .unsupportedVersion: "unsupported_version"
        case .bodyTooLarge: "body_too_large"
        case .transferEncodingNotSupported: "transfer_encoding_not_supported"
        case .invalidContentLength: "invalid_content_length"
        default: "bad_request"
        }
    }

    /// What was wrong, phrased for the client and the log.
    package var description: String {
        switch self {
        case .invalidStartLine: "malformed request or status line"
        case .invalidMethod: "the method is not a valid token"
        case .invalidHeader: "malformed header field"
        case .invalidLineEnding: "lines must end with CRLF"
        case .headersTooLarge(let limit): "request line and headers exceed \(limit) bytes"
        case .unsupportedVersion(let version): "\(version) is not supported; use HTTP/1.1"
        case .invalidHost: "HTTP/1.1 requests need exactly one Host header"
        case .invalidContentLength: "Content-Length must be one decimal number"
        case .bodyTooLarge(let limit): "body exceeds \(limit) bytes"
        case .transferEncodingNotSupported: "Transfer-Encoding (chunked bodies) is not supported; send the body with Content-Length"
        }
    }
}
