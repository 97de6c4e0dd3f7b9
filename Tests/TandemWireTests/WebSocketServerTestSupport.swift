import Dispatch
import Synchronization
import Testing
import TandemTestSupport
@testable import TandemWire

/// How a WebSocket connection ended, as a handler heard it.
struct CloseRecord: Sendable, Equatable {
    var code: UInt16?
    var reason: String
    var clean: Bool
}

/// What a `RecordingWebSocketHandler` has seen.
struct WebSocketLog: Sendable {
    var texts: [[UInt8]] = []
    var binaries: [[UInt8]] = []
    var closes: [CloseRecord] = []
    var idleFired = 0
}

/// A server- or client-side handler that records every event and, with `echo`, sends each message back.
final class RecordingWebSocketHandler: WebSocketHandler, @unchecked Sendable {
    let log = Mutex(WebSocketLog())
    let echo: Bool
    /// What the idle callback does after recording; nil keeps the connection open.
    let idleCloseCode: UInt16?

    init(echo: Bool = true, idleCloseCode: UInt16? = nil) {
        self.echo = echo
        self.idleCloseCode = idleCloseCode
    }

    var snapshot: WebSocketLog { log.withLock { $0 } }

    func webSocketDidReceiveText(_ connection: WebSocketConnection, _ text: [UInt8]) {
        log.withLock { $0.texts.append(text) }
        if echo { connection.sendText(text) }
    }

    func webSocketDidReceiveBinary(_ connection: WebSocketConnection, _ bytes: [UInt8]) {
        log.withLock { $0.binaries.append(bytes) }
        if echo { connection.sendBinary(bytes) }
    }

    func webSocketDidClose(_ connection: WebSocketConnection, code: UInt16?, reason: String, clean: Bool) {
        log.withLock { $0.closes.append(CloseRecord(code: code, reason: reason, clean: clean)) }
    }

    func webSocketIdleTimeoutFired(_ connection: WebSocketConnection) {
        log.withLock { $0.idleFired += 1 }
        if let idleCloseCode { connection.close(code: idleCloseCode, reason: "custom idle") }
    }
}

/// A handler that implements only the required callbacks, so the protocol's defaults apply (binary → 1003,
/// idle → 4000).
final class DefaultsHandler: WebSocketHandler, @unchecked Sendable {
    let closes = Mutex<[CloseRecord]>([])

    func webSocketDidReceiveText(_ connection: WebSocketConnection, _ text: [UInt8]) {}

    func webSocketDidClose(_ connection: WebSocketConnection, code: UInt16?, reason: String, clean: Bool) {
        closes.withLock { $0.append(CloseRecord(code: code, reason: reason, clean: clean)) }
    }
}

/// A WebSocket server on its own loop group for one test, keeping every accepted connection and its handler.
final class TestWebSocketServer: Sendable {
    let group: EventLoopGroup
    let server: WebSocketServer
    private let box: AcceptedBox

    init(
        threads: Int = 1,
        idleSweep: Duration = .seconds(1),
        configure: (inout WebSocketServerConfiguration) -> Void = { _ in },
        routes: @escaping @Sendable (HTTPRequest) -> HTTPResponse? = { _ in nil },
        makeHandler: @escaping @Sendable (WebSocketUpgrade) -> (any WebSocketHandler)? = { _ in RecordingWebSocketHandler() }
    ) throws {
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        configure(&configuration)
        group = try EventLoopGroup(threads: threads, idleSweepInterval: idleSweep)
        do {
            let box = AcceptedBox()
            server = try WebSocketServer.start(configuration: configuration, group: group, routes: routes) { connection, upgrade in
                guard let handler = makeHandler(upgrade) else { return nil }
                box.add(connection, handler)
                return handler
            }
            self.box = box
        } catch {
            group.shutdown()
            throw error
        }
    }

    /// `ws://127.0.0.1:<port><path>`.
    func url(_ path: String = "/v1/sync") -> String { "ws://127.0.0.1:\(server.port)\(path)" }

    var address: SocketAddress { get throws { try SocketAddress.resolveBlocking(host: "127.0.0.1", port: server.port)[0] } }

    /// The server-side connections accepted so far, in order.
    var connections: [WebSocketConnection] { box.entries.map(\.0) }

    /// The handlers the accept closure returned, in order.
    func handler<Handler: WebSocketHandler>(_ index: Int, as type: Handler.Type = RecordingWebSocketHandler.self) -> Handler? {
        let entries = box.entries
        return index < entries.count ? entries[index].1 as? Handler : nil
    }

    func stop() {
        server.shutdown(timeout: .seconds(1))
        group.shutdown()
    }
}

/// The accepted connections of a `TestWebSocketServer`; thread-safe.
final class AcceptedBox: @unchecked Sendable {
    private let lock = Mutex<Void>(())
    private var stored: [(WebSocketConnection, any WebSocketHandler)] = []

    func add(_ connection: WebSocketConnection, _ handler: any WebSocketHandler) {
        lock.withLock { _ in stored.append((connection, handler)) }
    }

    var entries: [(WebSocketConnection, any WebSocketHandler)] { lock.withLock { _ in stored } }
}

/// Collects a client's events in the background so tests can poll them with `eventually`.
final class EventCollector: Sendable {
    private let box = CollectorBox()

    init(_ client: WebSocketClient) {
        let box = box
        Task { for await event in client.events { box.append(event) } }
    }

    var events: [WebSocketClientEvent] { box.events }

    var texts: [[UInt8]] { events.compactMap { if case .text(let bytes) = $0 { bytes } else { nil } } }

    var closed: (code: UInt16?, reason: String)? {
        for event in events { if case .closed(let code, let reason) = event { return (code, reason) } }
        return nil
    }
}

/// The storage of an `EventCollector`.
final class CollectorBox: Sendable {
    private let state = Mutex<[WebSocketClientEvent]>([])
    func append(_ event: WebSocketClientEvent) { state.withLock { $0.append(event) } }
    var events: [WebSocketClientEvent] { state.withLock { $0 } }
}

/// A raw upgrade request for `path` with a fixed valid key, for tests that speak WebSocket by hand.
func rawUpgradeRequest(path: String = "/v1/sync", extra: String = "") -> [UInt8] {
    Array("GET \(path) HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\(extra)\r\n".utf8)
}

/// Reads from `peer` until `bytes` contains the end of an HTTP head; returns everything read.
func readHead(_ peer: BlockingPeer) async -> [UInt8] {
    var received: [UInt8] = []
    while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
        guard case .success(let chunk) = await peer.receiveOffPool(), !chunk.isEmpty else { break }
        received += chunk
    }
    return received
}

extension Array where Element == UInt8 {
    /// The bytes as text, for assertions on HTTP responses.
    var text: String { String(decoding: self, as: UTF8.self) }
}
