import Foundation
import Synchronization
import TandemProtocol
import TandemServer
import TandemTesting
import TandemWire
@testable import TandemClient

/// The in-process `TestServer` of TandemTesting with durable storage in a temporary folder, relaxed
/// deadlines for a loaded machine, and sessions that count their token requests.
final class SessionTestServer: Sendable {
    let base: TestServer
    let directory: String

    var server: SyncServer { base.server }
    var group: EventLoopGroup { base.group }

    static func start(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws -> SessionTestServer {
        var directory = ""
        let base = try TestServer(secret: "test") { configuration in
            configuration.inMemoryStorage = false
            // The suite runs in parallel on two cores: deadlines not under test get room.
            configuration.helloTimeout = .seconds(60)
            configuration.handshakeTimeout = .seconds(60)
            configuration.idleTimeout = .seconds(60)
            adjust(&configuration)
            directory = configuration.dataDirectory
        }
        return SessionTestServer(base: base, directory: directory)
    }

    private init(base: TestServer, directory: String) {
        self.base = base
        self.directory = directory
    }

    /// Stops the server (once, however often it is called).
    func stopServer() async {
        await base.stop()
    }

    func token(user: String, room: String = "lobby", role: Role = .host) -> String {
        base.token(user: user, room: room, role: role)
    }

    /// A session for `user` with fast reconnects, and a counter of its token requests.
    func session(
        user: String, client: String, role: Role = .host, presence: JSONValue? = nil,
        token: (@Sendable () -> String)? = nil
    ) -> (SyncSession, TokenCounter) {
        let counter = TokenCounter()
        let minted = self.token(user: user, role: role)
        let provide = token ?? { minted }
        let session = SyncSession(
            url: server.syncURL, clientID: client, tokenProvider: { counter.increment(); return provide() },
            presence: presence, configuration: TestServer.fastReconnects, transport: WireTransport(group: group))
        return (session, counter)
    }

    /// Shuts the server down and returns a session aimed at its former address: every attempt fails.
    func unreachableSession(backoff: Backoff) async -> SyncSession {
        let url = server.syncURL
        await stopServer()
        return SyncSession(
            url: url, clientID: "a1", tokenProvider: { "t" },
            configuration: SyncSessionConfiguration(reconnect: ReconnectPolicy(backoff: backoff)), transport: WireTransport(group: group))
    }

    func shutdown() async {
        await base.shutdown()
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
