import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TandemWireCore

/// HTTP through URLSession: the system's TLS, proxies and App Transport Security on Apple platforms. It runs
/// on Linux too (FoundationNetworking speaks HTTP), which is where the suite tests it.
///
/// Its session is ephemeral (no cookies or cache kept for an API called with bearer tokens) and its own:
/// it is invalidated when the last client holding the transport lets it go.
final class URLSessionHTTPTransport: HTTPAPITransport {
    let session: URLSession

    init() {
        session = URLSession(configuration: .ephemeral)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    func send(method: String, url: String, headers: HTTPHeaders, body: [UInt8], timeout: Duration) async throws(HTTPAPIFailure) -> HTTPResponse {
        guard let target = URL(string: url), ["http", "https"].contains(target.scheme?.lowercased() ?? "") else {
            throw .transport("invalid HTTP URL: \(url): expected http:// or https://host[:port]/path")
        }
        var request = URLRequest(url: target, timeoutInterval: timeout.totalSeconds)
        request.httpMethod = method
        for header in headers { request.addValue(header.value, forHTTPHeaderField: header.name) }
        if !body.isEmpty { request.httpBody = Data(body) }
        let data: Data
        let answer: URLResponse
        do {
            (data, answer) = try await session.data(for: request)
        } catch {
            guard let failure = URLSessionFailure.urlError(error) else { throw .transport("\(error)") }
            if let tls = URLSessionFailure.tlsError(failure) { throw .tls(tls) }
            throw .transport(failure.code == .timedOut ? "timed out waiting for the server's response" : failure.localizedDescription)
        }
        guard let http = answer as? HTTPURLResponse else { throw .transport("the answer to \(url) is not an HTTP response") }
        var fields = HTTPHeaders()
        for (name, value) in http.allHeaderFields {
            fields.add(name: "\(name)", value: "\(value)")
        }
        return HTTPResponse(status: http.statusCode, headers: fields, body: Array(data))
    }
}
