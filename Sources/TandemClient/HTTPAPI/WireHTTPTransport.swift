// Only where the package links TandemWire (Package.swift's `wireTransportPlatforms`).
#if TANDEM_WIRE_TRANSPORT
import TandemWire

/// HTTP/1.1 on TandemWire's event loops, with OpenSSL for `https://`: a loop of the caller's group or one of
/// its own, a TLS context loaded once.
struct WireHTTPTransport: HTTPAPITransport {
    let resources: WireClientResources

    init(group: EventLoopGroup?, tls: TLSConfiguration) {
        resources = WireClientResources(group: group, tls: tls)
    }

    func send(method: String, url: String, headers: HTTPHeaders, body: [UInt8], timeout: Duration) async throws(HTTPAPIFailure) -> HTTPResponse {
        let loop: EventLoop
        let context: TLSContext?
        do throws(IOError) {
            loop = try resources.loop()
        } catch {
            throw .transport(error.description)
        }
        do throws(TLSError) {
            context = url.lowercased().hasPrefix("https://") ? try resources.tlsContext() : nil
        } catch {
            throw .tls(error)
        }
        do {
            return try await HTTPClient.send(method: method, url: url, headers: headers, body: body, timeout: timeout, tls: context, on: loop)
        } catch {
            if case .tls(let failure) = error { throw .tls(failure) }
            throw .transport(error.description)
        }
    }
}
#endif
