import TandemWire

/// How a delivery reaches its endpoint (an HTTP POST; tests inject their own).
package protocol WebhookTransport: Sendable {
    /// POSTs `body` with `headers` to `url` and returns the response's status, or why there was none.
    func post(url: String, headers: HTTPHeaders, body: [UInt8], timeout: Duration) async -> WebhookTransportResult
}

/// What one try got.
package enum WebhookTransportResult: Sendable, Equatable {
    /// The endpoint answered with this status (2xx is success, anything else a failure to retry).
    case status(Int)
    /// No answer: refused, unreachable, timed out or not HTTP.
    case failed(String)
}

/// POSTs over Tandem's HTTP client (`http://` and `https://`, the system's trust store or `tls`).
package struct HTTPWebhookTransport: WebhookTransport {
    let group: EventLoopGroup
    let tls: TLSContext?

    package init(group: EventLoopGroup, tls: TLSContext? = nil) {
        self.group = group
        self.tls = tls
    }

    package func post(url: String, headers: HTTPHeaders, body: [UInt8], timeout: Duration) async -> WebhookTransportResult {
        do throws(HTTPClientError) {
            // Only the status matters; a response body beyond 64 KiB counts as no answer.
            let response = try await HTTPClient.send(method: "POST", url: url, headers: headers, body: body, timeout: timeout,
                                                     maxBodyBytes: 64 << 10, tls: tls, on: group.next())
            return .status(response.status)
        } catch {
            return .failed(error.description)
        }
    }
}
