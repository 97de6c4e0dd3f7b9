import TandemWireCore

/// How the HTTP API clients (`RoomsClient`, `InviteClient`) send one request: URLSession on Apple platforms,
/// TandemWire's loop where the package links it. Package-level so tests run either kind against a server.
package protocol HTTPAPITransport: Sendable {
    /// Sends the request and returns the whole response.
    /// - Throws: `HTTPAPIFailure` when no response came (unreachable, timed out, TLS refused).
    func send(method: String, url: String, headers: HTTPHeaders, body: [UInt8], timeout: Duration) async throws(HTTPAPIFailure) -> HTTPResponse
}

/// Why an HTTP API request got no response.
package enum HTTPAPIFailure: Error, Sendable {
    /// The server could not be reached or did not answer in time.
    case transport(String)
    /// TLS could not be set up for an `https://` server.
    case tls(TLSError)
}
