import Foundation
import Synchronization
import Testing
import TandemProtocol
import TandemTestSupport
import TandemProxy
import TandemTesting
import TandemWire
@testable import TandemClient

/// A server whose pongs come back at once, except the ones a test holds back until the next ping
/// arrives (so they are late past whatever deadline the client measured), and that can go silent (a
/// blackholed link: nothing answered, nothing sent, the socket left open).
private final class WeakLinkServer: Sendable {
    let server: WebSocketServer
    let state: LinkState

    /// What the server has seen, and whether it has gone silent.
    final class LinkState: Sendable {
        private let counts = Mutex<(hellos: Int, pings: Int, silent: Bool, held: [UInt8]?)>((0, 0, false, nil))
        func withLock<R: Sendable>(_ body: (inout (hellos: Int, pings: Int, silent: Bool, held: [UInt8]?)) -> R) -> R { counts.withLock { body(&$0) } }
    }

    init(group: EventLoopGroup, interval: Int, latePongs: Set<Int>) throws {
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        let state = LinkState()
        self.state = state
        server = try WebSocketServer.start(configuration: configuration, group: group, routes: { _ in nil }) { _, _ in
            Handler(state: state, interval: interval, latePongs: latePongs)
        }
    }

    var url: String { "ws://127.0.0.1:\(server.port)/v1/sync" }
    var hellos: Int { state.withLock { $0.hellos } }
    var pings: Int { state.withLock { $0.pings } }
    func goSilent() { state.withLock { $0.silent = true } }

    private final class Handler: WebSocketHandler {
        let state: LinkState
        let interval: Int
        let latePongs: Set<Int>

        init(state: LinkState, interval: Int, latePongs: Set<Int>) {
            self.state = state
            self.interval = interval
            self.latePongs = latePongs
        }

        func webSocketDidReceiveText(_ connection: WebSocketConnection, _ text: [UInt8]) {
            guard let message = try? ClientMessage.decode(text) else { return }
            switch message {
            case .hello(let hello):
                state.withLock { $0.hellos += 1; $0.silent = false }
                connection.sendText(ServerMessage.welcome(Welcome(
                    epoch: "e", rev: 0, sync: .state(.emptyObject), lastSeq: 0, you: SessionIdentity(user: "u", client: hello.client, role: .host),
                    participants: [], heartbeat: HeartbeatSettings(interval: interval, timeout: 3 * interval))).encoded())
            case .ping(let t):
                let (number, silent, held) = state.withLock { state -> (Int, Bool, [UInt8]?) in
                    state.pings += 1
                    defer { state.held = nil }
                    return (state.pings, state.silent, state.held)
                }
                guard !silent else { return }
                if let held { connection.sendText(held) }
                let pong = ServerMessage.pong(t: t).encoded()
                if latePongs.contains(number) {
                    state.withLock { $0.held = pong }
                } else {
                    connection.sendText(pong)
                }
            default:
                break
            }
        }

        func webSocketDidClose(_ connection: WebSocketConnection, code: UInt16?, reason: String, clean: Bool) {}
    }
}

/// The heartbeat over a real link: late pongs make the link degraded, never a reconnect; a blackholed link is
/// still found within two heartbeat intervals.
@Suite struct SyncSessionWeakLinkTests {
    @Test func latePongsOnAFastLinkCauseNoReconnectAndABlackholeIsStillFound() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        // A 2 s heartbeat; pongs come back at once, except the 2nd and 4th, which come with the pong of
        // the ping after them (the one the client retries when the deadline passes).
        let server = try WeakLinkServer(group: group, interval: 2_000, latePongs: [2, 4])
        let session = SyncSession(
            url: server.url, clientID: "a1", tokenProvider: { "t" },
            // The pong deadline pinned to 1 s: round trips a loaded machine stretches cannot move it past
            // the held pongs, nor the retried ping past the 2 × interval silence that ends a link.
            configuration: SyncSessionConfiguration(reconnect: ReconnectPolicy(backoff: Backoff(base: .seconds(0.01), cap: .seconds(0.02))),
                                                    rtt: RTTEstimator(minimumTimeout: 1, maximumTimeout: 1, initialTimeout: 1)),
            transport: WireTransport(group: group))
        let events = StreamLog(session.events)
        await session.start()
        #expect(await eventually(timeout: .seconds(30)) { server.pings >= 6 })
        let weak = events.all
        #expect(server.hellos == 1, "a late pong must not tear a healthy connection down")
        #expect(!weak.contains { if case .connectionChanged(.reconnecting) = $0 { true } else { false } })
        #expect(weak.contains { if case .linkDegraded(1) = $0 { true } else { false } }, "the late pong was reported as a weak link")
        #expect(weak.contains(.linkRecovered))
        #expect(await session.isLinkDegraded == false)

        // Now nothing comes back at all: found within 2 × 2 s of the last frame, then a new connection.
        server.goSilent()
        let silentSince = ContinuousClock.now
        #expect(await eventually(timeout: .seconds(20)) { server.hellos >= 2 })
        let found = ContinuousClock.now - silentSince
        #expect(found < .seconds(6), "a blackholed link took \(found) to find")
        await session.stop()
        await server.server.shutdownOffThePool()
    }
}

/// A session whose link stalls for longer than a heartbeat interval, but less than the two intervals of
/// silence that end a link, again and again, for several heartbeats against a real server: late pongs and
/// silent stalls are a weak link, not a dead one, so the session never reconnects and a change made during
/// the run arrives once. Intervals of 3 s keep a second of margin on each side when the whole suite
/// loads the machine: a stall and its delays last about 3.9 s, against the 6 s that end a link.
@Suite struct SyncSessionStallTests {
    @Test func stallsShorterThanTwoHeartbeatsCauseNoReconnect() async throws {
        let harness = try SessionTestServer.start {
            $0.heartbeatInterval = .seconds(3)
            $0.idleTimeout = .seconds(12)
        }
        let faults = FaultProxy.Faults(latency: .milliseconds(90), jitter: .milliseconds(120), bandwidthKilobytesPerSecond: 8,
                                       stallEvery: .seconds(4), stallLength: .milliseconds(3_500))
        let link = try FaultProxy.start(listenPort: 0, targetHost: "127.0.0.1", targetPort: harness.server.port, faults: faults, group: harness.group)
        let token = harness.token(user: "alice")
        let session = SyncSession(url: "ws://127.0.0.1:\(link.port)\(TandemProtocol.syncPath)", clientID: "a1", tokenProvider: { token },
                                  configuration: TestServer.fastReconnects, transport: WireTransport(group: harness.group))
        let events = StreamLog(session.events)
        await session.start()
        #expect(await session.waitUntilConnected(timeout: .seconds(30)))
        try await session.apply([.set(JSONPointer(tokens: ["n"]), 1)])
        // Four heartbeats (each ping a message the server counts), with three or four stalls among them.
        let before = harness.server.metrics.messagesIn.value
        #expect(await eventually(timeout: .seconds(60)) { harness.server.metrics.messagesIn.value >= before + 4 })
        #expect(!events.all.contains { if case .connectionChanged(.reconnecting) = $0 { true } else { false } },
                "a stalled link must not be taken for a dead one: \(events.all.suffix(8))")
        #expect(link.statistics.acceptedConnections == 1)
        #expect(await eventually(timeout: .seconds(30)) { await session.pendingCount == 0 })
        await session.stop()
        await link.shutdown()
        await harness.shutdown()
    }
}
