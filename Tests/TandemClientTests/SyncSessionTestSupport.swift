import Foundation
import Synchronization
import TandemProtocol
import TandemServer
import TandemWire
@testable import TandemClient

/// An in-process server on a free loopback port with a temporary data folder, plus the event
/// loops the sessions under test connect on.
final class SessionTestServer: Sendable {
    let server: SyncServer
    let directory: String
    let group: EventLoopGroup
    /// `SyncServer.shutdown` must run once: a test that stops the server early claims it here.
    private let serverRunning = Mutex(true)

    static func start(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws -> SessionTestServer {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tandem-session-\(UUID().uuidString)").path
        // The suite runs in parallel on two cores: deadlines not under test get room.
        configuration.helloTimeoutMilliseconds = 60_000
        configuration.handshakeTimeoutMilliseconds = 60_000
        configuration.idleTimeoutMilliseconds = 60_000
        adjust(&configuration)
        let server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "test"], logger: .discarding)
        return SessionTestServer(server: server, directory: configuration.dataDirectory, group: try EventLoopGroup(threads: 1))
    }

    private init(server: SyncServer, directory: String, group: EventLoopGroup) {
        self.server = server
        self.directory = directory
        self.group = group
    }

    /// Stops the server (once, however often it is called).
    func stopServer() async {
        let running = serverRunning.withLock { running in
            defer { running = false }
            return running
        }
        if running { await server.shutdown() }
    }

    func token(user: String, room: String = "lobby", role: Role = .host) -> String {
        server.tokens.mint(TokenClaims(sub: user, room: room, role: role, exp: server.tokens.currentTime + 600))
    }

    /// A session for `user` with fast reconnects, and a counter of its token requests.
    func session(
        user: String, client: String, role: Role = .host, presence: JSONValue? = nil,
        token: (@Sendable () -> String)? = nil
    ) -> (SyncSession, TokenCounter) {
        let counter = TokenCounter()
        let minted = self.token(user: user, role: role)
        let provide = token ?? { minted }
        let configuration = SyncSessionConfiguration(
            reconnect: ReconnectPolicy(backoff: ReconnectBackoff(base: 0.01, cap: 0.05)))
        let session = SyncSession(
            url: server.syncURL, clientID: client, tokenProvider: { counter.increment(); return provide() },
            presence: presence, configuration: configuration, transport: WireTransport(group: group))
        return (session, counter)
    }

    /// Shuts the server down and returns a session aimed at its former address: every attempt fails.
    func unreachableSession(backoff: ReconnectBackoff) async -> SyncSession {
        let url = server.syncURL
        await stopServer()
        return SyncSession(
            url: url, clientID: "a1", tokenProvider: { "t" },
            configuration: SyncSessionConfiguration(reconnect: ReconnectPolicy(backoff: backoff)), transport: WireTransport(group: group))
    }

    func shutdown() async {
        await stopServer()
        group.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Counts calls of a token provider.
final class TokenCounter: Sendable {
    private let count = Mutex(0)

    func increment() { count.withLock { $0 += 1 } }

    var value: Int { count.withLock { $0 } }
}

/// Everything an `AsyncStream` produced so far, collected by one task so that tests can look at
/// the history without consuming the stream themselves.
final class StreamLog<Item: Sendable>: Sendable {
    private let items = Mutex<[Item]>([])
    private let done = Mutex(false)

    init(_ stream: AsyncStream<Item>) {
        Task {
            for await item in stream { self.items.withLock { $0.append(item) } }
            self.done.withLock { $0 = true }
        }
    }

    var all: [Item] { items.withLock { $0 } }

    /// Whether the stream has finished.
    var isFinished: Bool { done.withLock { $0 } }
}

/// Polls `condition` until it holds or `timeout` passes (real I/O: tiny bounded sleeps).
func eventually(timeout: Duration = .seconds(30), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}

extension SyncSession {
    /// Whether the session is connected and has nothing pending.
    func isSettled() -> Bool {
        if case .connected = state { return snapshot.pending == 0 }
        return false
    }
}
