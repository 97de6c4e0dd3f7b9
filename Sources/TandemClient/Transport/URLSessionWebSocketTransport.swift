import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TandemWireCore
import TandemProtocol

/// The transport on `URLSessionWebSocketTask`, the WebSocket Apple apps trust: the system's TLS, App Transport
/// Security, proxies and the device's certificate store. The session's logic is the same as over
/// `WireTransport`.
///
/// It compiles on Linux (FoundationNetworking declares the API), where CI builds it, but it is meant for
/// Apple platforms; on Linux use `WireTransport`. Trust follows the system: a private CA is trusted once it
/// is installed on the device (or through `URLSessionConfiguration` and a delegate of the app's own).
public final class URLSessionWebSocketTransport: SyncTransport {
    private let makeTask: @Sendable (URLRequest) -> any WebSocketTask
    private let finish: @Sendable () -> Void

    /// A transport whose tasks run in a session made from `configuration`.
    public init(configuration: URLSessionConfiguration = .default) {
        let session = URLSession(configuration: configuration)
        makeTask = { session.webSocketTask(with: $0) }
        finish = { session.invalidateAndCancel() }
    }

    /// A transport whose tasks `makeTask` makes (tests script them).
    init(makeTask: @escaping @Sendable (URLRequest) -> any WebSocketTask) {
        self.makeTask = makeTask
        finish = {}
    }

    deinit {
        finish()
    }

    /// Opens the task, then waits for the upgrade with a ping (its pong proves the socket open).
    public func connect(_ request: SyncTransportRequest) async throws(SyncTransportError) -> any SyncTransportConnection {
        let task = makeTask(try Self.urlRequest(request))
        task.maximumMessageSize = request.maxMessageSize
        task.resume()
        if let opened = await task.ping() {
            // The ping's error can be a consequence ("connection lost"); the task's own failure says why.
            let cause = task.failure ?? opened
            task.cancel()
            throw Self.transportError(cause)
        }
        return URLSessionWebSocketConnection(task: task)
    }

    /// The upgrade request for `request`: its URL (ws:// or wss:// with a host), timeout, headers and subprotocols.
    static func urlRequest(_ request: SyncTransportRequest) throws(SyncTransportError) -> URLRequest {
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
              url.host?.isEmpty == false else {
            throw .invalidURL("\(request.url): expected ws:// or wss://host[:port]/path")
        }
        var urlRequest = URLRequest(url: url, timeoutInterval: request.timeout.totalSeconds)
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        if !request.subprotocols.isEmpty {
            urlRequest.setValue(request.subprotocols.joined(separator: ", "), forHTTPHeaderField: "Sec-WebSocket-Protocol")
        }
        return urlRequest
    }

    /// The session's error for a URLSession failure: certificate problems are `tls` (permanent).
    static func transportError(_ error: any Error) -> SyncTransportError {
        guard let failure = URLSessionFailure.urlError(error) else { return .unreachable("\(error)") }
        if let tls = URLSessionFailure.tlsError(failure) { return .tls(tls) }
        let detail = failure.localizedDescription
        switch failure.code {
        case .unsupportedURL where failure.failingURL.map({ ["ws", "wss"].contains($0.scheme?.lowercased() ?? "") }) ?? true:
            // A ws:// or wss:// URL the platform cannot open: its networking has no WebSockets. Retrying cannot help.
            return .unsupportedPlatform(detail)
        case .badURL, .unsupportedURL: return .invalidURL(detail)
        case .timedOut: return .timeout
        case .badServerResponse: return .handshakeFailed(detail)
        default: return .unreachable(detail)
        }
    }
}

/// One WebSocket task: a receive loop feeds `events`; the close code is read from the task when the loop ends.
/// The loop holds the task until the connection is gone, then lets it go.
final class URLSessionWebSocketConnection: SyncTransportConnection {
    private let task: any WebSocketTask
    let events: AsyncStream<WebSocketClientEvent>

    init(task: any WebSocketTask) {
        self.task = task
        let (events, sink) = AsyncStream<WebSocketClientEvent>.makeStream()
        self.events = events
        Task { [task] in
            while true {
                do {
                    switch try await task.receive() {
                    case .text(let text): sink.yield(.text(Array(text.utf8)))
                    case .binary(let data): sink.yield(.binary(Array(data)))
                    }
                } catch {
                    let frame = task.closeFrame
                    let code = frame.code.map { UInt16(clamping: $0) }
                    sink.yield(.closed(code: code, reason: frame.reason.map { String(decoding: $0, as: UTF8.self) } ?? ""))
                    sink.finish()
                    return
                }
            }
        }
    }

    func send(text: [UInt8]) async throws(SyncTransportError) {
        do {
            try await task.send(text: String(decoding: text, as: UTF8.self))
        } catch {
            throw .closed
        }
    }

    /// Starts the close handshake; URLSession completes it in the background (the receive loop then ends
    /// `events`), so this returns at once.
    func close(code: UInt16, reason: String) async {
        task.close(code: Int(code), reason: Data(reason.utf8))
    }

    func abort() {
        task.cancel()
    }
}
