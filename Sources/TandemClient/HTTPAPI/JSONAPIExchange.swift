import TandemProtocol
import TandemWireCore

/// One request to a Tandem server's HTTP API with a JSON body and answer, over an `HTTPAPITransport`: what
/// the API clients (`InviteClient`, `RoomsClient`) share, each mapping statuses to its own errors.
struct JSONAPIExchange: Sendable {
    /// The server's base URL, without a trailing `/`.
    let baseURL: String
    let transport: any HTTPAPITransport
    let timeout: Duration

    /// A client of the server at `baseURL` (a trailing `/` is ignored).
    init(baseURL: String, transport: any HTTPAPITransport, timeout: Duration) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.transport = transport
        self.timeout = timeout
    }

    /// Sends `method path` with `body` as JSON and `token` as the bearer; returns the response and its
    /// body parsed as JSON (nil when it is not JSON).
    func send(_ method: String, _ path: String, body: JSONValue?, token: String?) async throws(HTTPAPIFailure) -> (response: HTTPResponse, json: JSONValue?) {
        var headers: HTTPHeaders = ["Accept": "application/json"]
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        if body != nil { headers.add(name: "Content-Type", value: "application/json") }
        let response = try await transport.send(method: method, url: baseURL + path, headers: headers, body: body?.serializedBytes() ?? [],
                                                timeout: timeout)
        return (response, try? JSONValue.parse(response.body))
    }

    /// Percent-encodes everything but unreserved characters (RFC 3986 §2.3), for a path segment.
    static func escaped(_ segment: String) -> String {
        var out = ""
        for byte in segment.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
