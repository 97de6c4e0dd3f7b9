import TandemProtocol
import TandemWire

/// One request to a Tandem server's HTTP API with a JSON body and answer, over Tandem's own event loops:
/// what the API clients (`InviteClient`, `RoomsClient`) share, each mapping statuses to its own errors.
struct JSONAPIExchange: Sendable {
    /// Why no answer came.
    enum Failure: Error, Sendable {
        /// The server could not be reached or did not answer in time.
        case transport(String)
        /// TLS could not be set up for an `https://` server.
        case tls(TLSError)
    }

    /// The server's base URL, without a trailing `/`.
    let baseURL: String
    let resources: WireClientResources
    let timeout: Duration

    /// A client of the server at `baseURL` (a trailing `/` is ignored).
    init(baseURL: String, group: EventLoopGroup?, tls: TLSConfiguration, timeout: Duration) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        resources = WireClientResources(group: group, tls: tls)
        self.timeout = timeout
    }

    /// Sends `method path` with `body` as JSON and `token` as the bearer; returns the response and its
    /// body parsed as JSON (nil when it is not JSON).
    func send(_ method: String, _ path: String, body: JSONValue?, token: String?) async throws(Failure) -> (response: HTTPResponse, json: JSONValue?) {
        var headers: HTTPHeaders = ["Accept": "application/json"]
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        if body != nil { headers.add(name: "Content-Type", value: "application/json") }
        let loop: EventLoop
        let context: TLSContext?
        do throws(IOError) {
            loop = try resources.loop()
        } catch {
            throw .transport(error.description)
        }
        do throws(TLSError) {
            context = baseURL.lowercased().hasPrefix("https://") ? try resources.tlsContext() : nil
        } catch {
            throw .tls(error)
        }
        let response: HTTPResponse
        do {
            response = try await HTTPClient.send(method: method, url: baseURL + path, headers: headers, body: body?.serializedBytes() ?? [],
                                                 timeout: timeout, tls: context, on: loop)
        } catch {
            if case .tls(let failure) = error { throw .tls(failure) }
            throw .transport(error.description)
        }
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
