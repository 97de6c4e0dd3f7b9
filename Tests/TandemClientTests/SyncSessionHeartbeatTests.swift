import Foundation
import Synchronization
import Testing
import TandemProtocol
import TandemTestSupport
import TandemWire
@testable import TandemClient

/// A WebSocket server that speaks just enough of the protocol to test the client's deadlines: it
/// counts `hello`s, optionally answers with a `welcome`, and never answers a `ping`.
private final class SilentServer: Sendable {
    let server: WebSocketServer

    init(welcomeIntervalMilliseconds: Int?, group: EventLoopGroup) throws {
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        let box = Counter()
        server = try WebSocketServer.start(configuration: configuration, group: group, routes: { _ in nil }) { _, _ in
            Handler(welcomeInterval: welcomeIntervalMilliseconds, counter: box)
        }
        counter = box
    }

    private let counter: Counter

    var helloCount: Int { counter.value }
    var url: String { "ws://127.0.0.1:\(server.port)/v1/sync" }

    func shutdown() async { await server.shutdownOffThePool() }

    final class Counter: Sendable {
        private let count = Mutex(0)
        func increment() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    private final class Handler: WebSocketHandler {
        let welcomeInterval: Int?
        let counter: Counter

        init(welcomeInterval: Int?, counter: Counter) {
            self.welcomeInterval = welcomeInterval
            self.counter = counter
        }

        func webSocketDidReceiveText(_ connection: WebSocketConnection, _ text: [UInt8]) {
            guard case .hello(let hello)? = try? ClientMessage.decode(text) else { return }
            counter.increment()
            guard let welcomeInterval else { return }
            let welcome = Welcome(
                epoch: "e", rev: 0, sync: .state(.emptyObject), lastSeq: 0,
                you: SessionIdentity(user: "u", client: hello.client, role: .host), participants: [],
                heartbeat: HeartbeatSettings(interval: welcomeInterval, timeout: 3 * welcomeInterval))
            connection.sendText(ServerMessage.welcome(welcome).encoded())
        }

        func webSocketDidClose(_ connection: WebSocketConnection, code: UInt16?, reason: String, clean: Bool) {}
    }
}

@Suite struct SyncSessionHeartbeatTests {
    private static let fastRetry = ReconnectPolicy(backoff: Backoff(base: .seconds(0.01), cap: .seconds(0.02)))

    @Test func aSilentConnectionIsDeclaredDeadAndReplaced() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let server = try SilentServer(welcomeIntervalMilliseconds: 100, group: group)
        let session = SyncSession(
            url: server.url, clientID: "a1", tokenProvider: { "t" },
            configuration: SyncSessionConfiguration(reconnect: Self.fastRetry), transport: WireTransport(group: group))
        let states = StreamLog(session.states)
        await session.start()
        // No frame after the welcome: dead after 2 × 100 ms, then a new attempt says hello again.
        #expect(await eventually { server.helloCount >= 2 })
        let sequence = states.all
        let connected = sequence.firstIndex(of: .connected)
        let retried = sequence.firstIndex { if case .reconnecting = $0 { true } else { false } }
        #expect(connected != nil && retried != nil && connected! < retried!)
        await session.stop()
        await server.shutdown()
    }

    @Test func aHandshakeWithoutWelcomeTimesOutAndIsRetried() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let server = try SilentServer(welcomeIntervalMilliseconds: nil, group: group)
        let session = SyncSession(
            url: server.url, clientID: "a1", tokenProvider: { "t" },
            configuration: SyncSessionConfiguration(reconnect: Self.fastRetry, welcomeTimeout: 100_000_000), transport: WireTransport(group: group))
        await session.start()
        #expect(await eventually { server.helloCount >= 2 })
        #expect(await session.state != .connected)
        await session.stop()
        await server.shutdown()
    }
}
