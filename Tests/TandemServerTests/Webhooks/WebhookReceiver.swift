import Foundation
import Synchronization
import TandemProtocol
import TandemTestSupport
import TandemWire

/// A webhook endpoint on 127.0.0.1 for tests: records every request and answers with what `answer`
/// says for the request's number (1 for the first); nil never answers (a hanging endpoint).
final class WebhookReceiver: Sendable {
    struct Request: Sendable {
        var headers: HTTPHeaders
        var body: [UInt8]
        var json: JSONValue? { try? JSONValue.parse(body) }
    }

    let requests = Mailbox<Request>()
    private let server: WebSocketServer
    private let count = Counter()

    private final class Counter: Sendable {
        let value = Atomic(0)
    }

    private let scheme: String

    /// - Parameter tls: serves `https://` with this context when given.
    init(group: EventLoopGroup, tls: TLSContext? = nil, answer: @escaping @Sendable (Int) -> Int? = { _ in 200 }) throws {
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        configuration.host = "127.0.0.1"
        configuration.tls = tls
        scheme = tls == nil ? "http" : "https"
        let requests = requests
        let count = count
        server = try WebSocketServer.start(configuration: configuration, group: group, handler: { request, responder in
            let number = count.value.add(1, ordering: .relaxed).newValue
            requests.push(Request(headers: request.headers, body: request.body))
            if let status = answer(number) { responder.respond(HTTPResponse(status: status)) }
        }, accept: { _, _ in nil })
    }

    var url: String { "\(scheme)://127.0.0.1:\(server.port)/hooks/tandem" }

    /// The next request's event (nil after `timeout`).
    func next(timeout: Duration = .seconds(20)) async -> Request? { await requests.next(timeout: timeout) }

    func stop() { server.shutdown(code: 1001, reason: "", timeout: .seconds(1)) }
}
