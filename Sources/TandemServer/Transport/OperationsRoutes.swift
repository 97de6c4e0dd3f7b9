import TandemSynchronization
import TandemWire

/// The plain HTTP endpoints: `GET /healthz` (200 once the server accepts connections) and
/// `GET /metrics` (Prometheus text format).
final class OperationsRoutes: Sendable {
    private let metrics: ServerMetrics
    private let ready = AtomicValue<Bool>(false)

    init(metrics: ServerMetrics) {
        self.metrics = metrics
    }

    /// Called once the listener accepts connections.
    func markReady() { ready.store(true, ordering: .releasing) }

    /// The response for a plain request, or `nil` for a 404.
    func respond(to request: HTTPRequest) -> HTTPResponse? {
        switch (request.method, request.path) {
        case ("GET", "/healthz"), ("HEAD", "/healthz"):
            guard ready.load(ordering: .acquiring) else { return text(503, "starting\n") }
            return text(200, "ok\n")
        case ("GET", "/metrics"):
            return text(200, metrics.prometheusText(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        case (_, "/healthz"), (_, "/metrics"):
            var response = text(405, "method not allowed\n")
            response.headers.add(name: "Allow", value: "GET")
            return response
        default:
            return nil
        }
    }

    private func text(_ status: Int, _ body: String, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType, "Cache-Control": "no-store"], body: Array(body.utf8))
    }
}
