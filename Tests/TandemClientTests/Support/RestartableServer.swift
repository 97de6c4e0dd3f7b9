import Foundation
import Synchronization
import TandemProtocol
import TandemServer
import TandemTesting
import TandemWire
@testable import TandemClient

/// A real server on one port and one data folder that a test can restart: sessions made here reconnect to
/// the new process's rooms, stored durably by the old one. Tokens stay valid across restarts (one secret).
final class RestartableServer: Sendable {
    private let current: Mutex<SyncServer?>
    let port: Int
    let directory: String
    let group: EventLoopGroup
    private let secret: String
    private let adjust: @Sendable (inout ServerConfiguration) -> Void

    /// Starts the first server; `adjust` changes each start's configuration (limits, grace periods).
    init(secret: String = "restartable", _ adjust: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in }) throws {
        self.secret = secret
        self.adjust = adjust
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-restartable-\(UUID().uuidString)").path
        let first = try SyncServer(configuration: Self.configuration(directory: directory, port: 0, adjust), environment: ["TANDEM_SECRET": secret],
                                   logger: .discarding)
        port = first.port
        current = Mutex(first)
        group = try EventLoopGroup(threads: 1)
    }

    private static func configuration(directory: String, port: Int, _ adjust: (inout ServerConfiguration) -> Void) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = port
        configuration.dataDirectory = directory
        configuration.helloTimeout = .seconds(60)
        configuration.handshakeTimeout = .seconds(60)
        configuration.idleTimeout = .seconds(60)
        adjust(&configuration)
        return configuration
    }

    var syncURL: String { "ws://127.0.0.1:\(port)/v1/sync" }
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// A token for `user` in `room`, valid across restarts.
    func token(user: String, room: String, role: Role = .host, name: String? = nil) -> String {
        let verifier = TokenVerifier(secret: Array(secret.utf8), hmac: { Digest.hmacSHA256(key: $0, message: $1) },
                                     now: { Int64(Date().timeIntervalSince1970) })
        return verifier.mint(TokenClaims(sub: user, room: room, role: role, exp: verifier.currentTime + 600, name: name))
    }

    /// A session of `user` in `room` with fast reconnects, not started: over a loopback socket, or over
    /// `transport` when given.
    func session(user: String, client: String, room: String, role: Role = .host, transport: (any SyncTransport)? = nil) -> SyncSession {
        let token = token(user: user, room: room, role: role)
        return SyncSession(url: syncURL, clientID: client, tokenProvider: { token }, configuration: TestServer.fastReconnects,
                           transport: transport ?? WireTransport(group: group))
    }

    /// A transport to whichever server is running now, without a socket (none while it restarts).
    func inProcessTransport() -> InProcessTransport {
        InProcessTransport { [self] in current.withLock { $0 } }
    }

    /// Stops the server and starts a new one on the same port and data folder.
    func restart() async throws {
        await stop()
        try await start()
    }

    /// Stops the server (sessions see it go away); `start()` brings a new one up.
    func stop() async {
        let old = current.withLock { server in
            defer { server = nil }
            return server
        }
        await old?.shutdown()
    }

    /// Starts a server on the same port and data folder (retrying while the port is released).
    func start() async throws {
        var lastError: (any Error)?
        for _ in 0..<100 {
            do {
                let server = try SyncServer(configuration: Self.configuration(directory: directory, port: port, adjust),
                                            environment: ["TANDEM_SECRET": secret], logger: .discarding)
                current.withLock { $0 = server }
                return
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        throw lastError!
    }

    /// Stops the server and the loop, and removes the data folder.
    func shutdown() async {
        let server = current.withLock { server in
            defer { server = nil }
            return server
        }
        await server?.shutdown()
        let group = group
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                group.shutdown()
                done.resume()
            }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
