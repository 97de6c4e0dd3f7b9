import Foundation
import TandemSynchronization
import TandemClient
import TandemProtocol
import TandemServer
import TandemWire

/// A real Tandem server inside the test process, for an app's tests to connect its real client to: it
/// listens on a free loopback port, keeps rooms in memory (nothing on disk to clean up), signs tokens
/// with a secret of its own, and gives sessions their own event loop.
///
/// Everything the server does is the production path (the same rooms, ordering and limits as
/// `tandem serve`); only the storage is memory. Call `shutdown()` once at the end of the test; it waits
/// for every connection to close.
public final class TestServer: Sendable {
    /// The server itself (its metrics, its token verifier).
    public let server: SyncServer
    /// The loop the sessions made by `session(…)` connect on.
    public let group: EventLoopGroup
    private let running = Locked(true)

    /// Starts a server whose tokens are signed with `secret` (a backend's minting code under test can
    /// use the same one); `adjust` changes its configuration first (limits, timeouts, TLS).
    /// - Throws: `ServerStartError` when it cannot start (no free port, unusable TLS files).
    public init(secret: String = "tandem-test-server", _ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws(ServerStartError) {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.inMemoryStorage = true
        configuration.dataDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tandem-test-server-\(UUID().uuidString)").path
        adjust(&configuration)
        server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": secret], logger: .discarding)
        do {
            group = try EventLoopGroup(threads: 1)
        } catch {
            server.shutdown()
            throw .eventLoops("\(error)")
        }
    }

    /// The WebSocket URL sessions connect to.
    public var syncURL: String { server.syncURL }

    /// A token for `user` in `room`, valid for `lifetime` seconds.
    public func token(user: String, room: String = "lobby", role: Role = .host, name: String? = nil, lifetime: Int64 = 600) -> String {
        server.tokens.mint(TokenClaims(sub: user, room: room, role: role, exp: server.tokens.currentTime + lifetime, name: name))
    }

    /// A session of `user` with client id `client` in `room`, not started yet; its token comes from this
    /// server. Reconnects are fast (10–50 ms) unless `configuration` says otherwise. It connects over a
    /// loopback socket, or over `transport` when given (an ``InProcessTransport`` to cut links at will).
    public func session(user: String, client: String, room: String = "lobby", role: Role = .host, presence: JSONValue? = nil,
                        configuration: SyncSessionConfiguration = TestServer.fastReconnects,
                        transport: (any SyncTransport)? = nil) -> SyncSession {
        let token = token(user: user, room: room, role: role)
        return SyncSession(url: syncURL, clientID: client, tokenProvider: { token }, presence: presence,
                           configuration: configuration, transport: transport ?? WireTransport(group: group))
    }

    /// A session configuration whose reconnects wait 10–50 ms, so tests that drop connections stay fast.
    public static var fastReconnects: SyncSessionConfiguration {
        SyncSessionConfiguration(reconnect: ReconnectPolicy(backoff: Backoff(base: .milliseconds(10), cap: .milliseconds(50))))
    }

    /// Stops the server (every connection is closed with 1001); sessions then see it go away. Idempotent.
    public func stop() async {
        let wasRunning = running.withLock { running in
            defer { running = false }
            return running
        }
        if wasRunning { await server.shutdown() }
    }

    /// Stops the server and the sessions' event loop. Call it once, after the sessions are closed.
    public func shutdown() async {
        await stop()
        let group = group
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            // Joining a loop thread blocks: not on the cooperative pool.
            Thread.detachNewThread {
                group.shutdown()
                done.resume()
            }
        }
    }
}
