import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing
import TandemProtocol
import TandemTesting
@testable import TandemClient

/// The URLSession transport's own logic over a scripted task: the request it makes, the upgrade check,
/// the receive loop and close codes, error mapping, closing and cancelling, and the task's lifetime. Only the
/// conformance of `URLSessionWebSocketTask` to `WebSocketTask` is left to Apple platforms.
@Suite struct URLSessionTransportLogicTests {
    /// A task whose answers the test scripts.
    final class ScriptedTask: WebSocketTask, @unchecked Sendable {
        struct Record {
            var resumed = 0, cancelled = 0
            var sent: [String] = []
            var closes: [(code: Int, reason: Data)] = []
            var maximumMessageSize = 0
        }
        let request: URLRequest
        let record = Mutex(Record())
        private let pingResult: (any Error)?
        private let scriptedFailure: (any Error)?
        private let sendFails: Bool
        private let incoming: AsyncStream<Result<WebSocketTaskMessage, any Error>>
        private let feed: AsyncStream<Result<WebSocketTaskMessage, any Error>>.Continuation
        private let frame = Mutex<(code: Int?, reason: Data?)>((nil, nil))

        init(request: URLRequest, ping: (any Error)? = nil, failure: (any Error)? = nil, sendFails: Bool = false) {
            self.request = request
            pingResult = ping
            scriptedFailure = failure
            self.sendFails = sendFails
            (incoming, feed) = AsyncStream.makeStream()
        }

        /// The server sends a message.
        func deliver(_ message: WebSocketTaskMessage) { feed.yield(.success(message)) }
        /// The connection ends, with the peer's close frame when given.
        func end(code: Int?, reason: String? = nil) {
            frame.withLock { $0 = (code, reason.map { Data($0.utf8) }) }
            feed.yield(.failure(URLError(.networkConnectionLost)))
        }

        var maximumMessageSize: Int {
            get { record.withLock { $0.maximumMessageSize } }
            set { record.withLock { $0.maximumMessageSize = newValue } }
        }
        func resume() { record.withLock { $0.resumed += 1 } }
        func ping() async -> (any Error)? { pingResult }
        func send(text: String) async throws {
            if sendFails { throw URLError(.networkConnectionLost) }
            record.withLock { $0.sent.append(text) }
        }
        func receive() async throws -> WebSocketTaskMessage {
            var iterator = incoming.makeAsyncIterator()
            guard let next = await iterator.next() else { throw URLError(.cancelled) }
            return try next.get()
        }
        func close(code: Int, reason: Data) {
            record.withLock { $0.closes.append((code, reason)) }
            end(code: code, reason: String(decoding: reason, as: UTF8.self))
        }
        func cancel() {
            record.withLock { $0.cancelled += 1 }
            end(code: nil)
        }
        var failure: (any Error)? { scriptedFailure }
        var closeFrame: (code: Int?, reason: Data?) { frame.withLock { $0 } }
    }

    /// A transport that makes one scripted task per attempt and keeps them for the test.
    final class Tasks: Sendable {
        let made = Mutex<[ScriptedTask]>([])
        let script: @Sendable (URLRequest) -> ScriptedTask
        init(_ script: @escaping @Sendable (URLRequest) -> ScriptedTask = { ScriptedTask(request: $0) }) { self.script = script }
        var transport: URLSessionWebSocketTransport {
            URLSessionWebSocketTransport { request in
                let task = self.script(request)
                self.made.withLock { $0.append(task) }
                return task
            }
        }
        var last: ScriptedTask? { made.withLock { $0.last } }
    }

    private static func request(_ url: String = "wss://tandem.example.com/v1/sync") -> SyncTransportRequest {
        SyncTransportRequest(url: url, subprotocols: [TandemProtocol.subprotocol], headers: [SyncTransportHeader(name: "X-App", value: "shop")],
                             timeout: .seconds(7), maxMessageSize: 65_536)
    }

    @Test func theUpgradeRequestCarriesTheURLSubprotocolHeadersTimeoutAndLimit() async throws {
        let tasks = Tasks()
        _ = try await tasks.transport.connect(Self.request())
        let task = try #require(tasks.last)
        #expect(task.request.url?.absoluteString == "wss://tandem.example.com/v1/sync")
        #expect(task.request.value(forHTTPHeaderField: "Sec-WebSocket-Protocol") == TandemProtocol.subprotocol)
        #expect(task.request.value(forHTTPHeaderField: "X-App") == "shop")
        #expect(task.request.timeoutInterval == 7)
        #expect(task.record.withLock { ($0.maximumMessageSize, $0.resumed) } == (65_536, 1))
    }

    @Test func aURLTheTransportCannotUseFailsBeforeAnyTaskExists() async {
        let tasks = Tasks()
        for url in ["https://tandem.example.com/v1/sync", "ws:///v1/sync", "not a url"] {
            await #expect(throws: SyncTransportError.self) { try await tasks.transport.connect(Self.request(url)) }
        }
        #expect(tasks.made.withLock { $0.isEmpty })
    }

    @Test func aFailedUpgradeIsReportedByTheTasksOwnFailureAndTheTaskIsCancelled() async {
        let tasks = Tasks { ScriptedTask(request: $0, ping: URLError(.networkConnectionLost), failure: URLError(.serverCertificateUntrusted)) }
        do {
            _ = try await tasks.transport.connect(Self.request())
            Issue.record("connected")
        } catch {
            guard case .tls(.untrustedCertificate) = error else { Issue.record("\(error)"); return }
            #expect(error.isPermanent)
        }
        #expect(tasks.last?.record.withLock { $0.cancelled } == 1)

        let lost = Tasks { ScriptedTask(request: $0, ping: URLError(.cannotConnectToHost)) }
        await #expect(throws: SyncTransportError.self) { try await lost.transport.connect(Self.request()) }
    }

    @Test func messagesArriveInOrderAndTheCloseFrameEndsTheEvents() async throws {
        let tasks = Tasks()
        let connection = try await tasks.transport.connect(Self.request())
        let task = try #require(tasks.last)
        task.deliver(.text("{\"type\":\"pong\"}"))
        task.deliver(.binary(Data([1, 2])))
        task.end(code: 4001, reason: "token expired")
        var events: [WebSocketClientEvent] = []
        for await event in connection.events { events.append(event) }
        #expect(events == [.text(Array("{\"type\":\"pong\"}".utf8)), .binary([1, 2]), .closed(code: 4001, reason: "token expired")])
    }

    @Test func aDropWithoutACloseFrameEndsWithNoCode() async throws {
        let tasks = Tasks()
        let connection = try await tasks.transport.connect(Self.request())
        connection.abort()
        var events: [WebSocketClientEvent] = []
        for await event in connection.events { events.append(event) }
        #expect(events == [.closed(code: nil, reason: "")])
        #expect(tasks.last?.record.withLock { $0.cancelled } == 1)
    }

    @Test func sendingClosingAndAFailedSend() async throws {
        let tasks = Tasks()
        let connection = try await tasks.transport.connect(Self.request())
        try await connection.send(text: Array("{\"type\":\"ping\"}".utf8))
        await connection.close(code: 1000, reason: "bye")
        let task = try #require(tasks.last)
        #expect(task.record.withLock { $0.sent } == ["{\"type\":\"ping\"}"])
        #expect(task.record.withLock { $0.closes.map(\.code) } == [1000])
        #expect(task.record.withLock { $0.closes.map { String(decoding: $0.reason, as: UTF8.self) } } == ["bye"])

        let failing = Tasks { ScriptedTask(request: $0, sendFails: true) }
        let broken = try await failing.transport.connect(Self.request())
        await #expect(throws: SyncTransportError.closed) { try await broken.send(text: Array("x".utf8)) }
    }

    /// A task whose socket is an in-process connection to a real server: the transport's logic end to end.
    final class ServedTask: WebSocketTask, @unchecked Sendable {
        private let network: InProcessTransport
        private let request: SyncTransportRequest
        private let connection = Mutex<(any SyncTransportConnection)?>(nil)
        private let events = Mutex<AsyncStream<WebSocketClientEvent>?>(nil)
        private let frame = Mutex<(code: Int?, reason: Data?)>((nil, nil))
        init(network: InProcessTransport, request: SyncTransportRequest) {
            self.network = network
            self.request = request
        }
        var maximumMessageSize = 0
        func resume() {}
        func ping() async -> (any Error)? {
            do {
                let opened = try await network.connect(request)
                connection.withLock { $0 = opened }
                events.withLock { $0 = opened.events }
                return nil
            } catch {
                return URLError(.cannotConnectToHost)
            }
        }
        func send(text: String) async throws {
            guard let connection = connection.withLock({ $0 }) else { throw URLError(.notConnectedToInternet) }
            try await connection.send(text: Array(text.utf8))
        }
        func receive() async throws -> WebSocketTaskMessage {
            // One reader at a time: the transport's receive loop.
            guard let stream = events.withLock({ $0 }) else { throw URLError(.notConnectedToInternet) }
            var iterator = stream.makeAsyncIterator()
            let event = await iterator.next()
            switch event {
            case .text(let bytes): return .text(String(decoding: bytes, as: UTF8.self))
            case .binary(let bytes): return .binary(Data(bytes))
            case .closed(let code, let reason):
                frame.withLock { $0 = (code.map(Int.init), Data(reason.utf8)) }
                throw URLError(.networkConnectionLost)
            case nil: throw URLError(.networkConnectionLost)
            }
        }
        func close(code: Int, reason: Data) {
            let connection = connection.withLock { $0 }
            Task { await connection?.close(code: UInt16(code), reason: String(decoding: reason, as: UTF8.self)) }
        }
        func cancel() { connection.withLock { $0 }?.abort() }
        var failure: (any Error)? { nil }
        var closeFrame: (code: Int?, reason: Data?) { frame.withLock { $0 } }
    }

    @Test func aSessionOverTheTransportSyncsDropsAndResumesAgainstARealServer() async throws {
        let server = try TestServer()
        let network = InProcessTransport(server: server)
        let transport = URLSessionWebSocketTransport { request in
            let url = request.url?.absoluteString ?? ""
            return ServedTask(network: network, request: SyncTransportRequest(url: url, subprotocols: [TandemProtocol.subprotocol]))
        }
        let alice = server.session(user: "alice", client: "a1", transport: transport)
        let bob = server.session(user: "bob", client: "b1", role: .guest)
        await alice.start()
        await bob.start()
        #expect(await alice.waitUntilConnected(timeout: .seconds(30)))
        #expect(await bob.waitUntilConnected(timeout: .seconds(30)))
        try await alice.apply([.set(JSONPointer(tokens: ["tabIndex"]), 2)])
        #expect(await alice.drain(timeout: .seconds(30)))
        network.dropConnections()
        try await bob.apply([.set(JSONPointer(tokens: ["cart"]), 1)])
        #expect(await eventually { await alice.snapshot.state == ["tabIndex": 2, "cart": 1] })
        #expect(network.attempts >= 2, "the dropped link was reopened through the transport")
        await alice.stop()
        await bob.stop()
        await server.shutdown()
    }

    @Test func theTaskIsReleasedOnceTheConnectionIsGone() async throws {
        weak var released: ScriptedTask?
        do {
            let tasks = Tasks()
            let connection = try await tasks.transport.connect(Self.request())
            released = tasks.last
            connection.abort()
            for await _ in connection.events {}
            tasks.made.withLock { $0.removeAll() }
        }
        #expect(await eventually(timeout: .seconds(10)) { released == nil })
    }
}
