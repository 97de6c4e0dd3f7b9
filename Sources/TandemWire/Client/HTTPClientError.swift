/// Why an HTTP request made with ``HTTPClient`` got no response.
package enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not an `http://` or `https://host[:port][/path]` URL.
    case invalidURL(String)
    /// The TCP connection could not be opened (refused, unreachable, unresolvable host...).
    case connectFailed(String)
    /// Connecting, sending and receiving took longer than the timeout.
    case timeout
    /// The server's answer was not a valid HTTP/1.1 response (or it closed before a complete one).
    case invalidResponse(String)
    /// TLS could not be set up for an `https://` URL (see `TLSError`).
    case tls(TLSError)

    /// What went wrong, phrased for a log line or the user.
    package var description: String {
        switch self {
        case .invalidURL(let message): "invalid HTTP URL: \(message)"
        case .connectFailed(let message): "could not connect: \(message)"
        case .timeout: "timed out waiting for the server's response"
        case .invalidResponse(let message): "invalid response from the server: \(message)"
        case .tls(let error): error.description
        }
    }
}
