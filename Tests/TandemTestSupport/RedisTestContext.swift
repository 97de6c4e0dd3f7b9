import Foundation
import Testing
import TandemRedis
import TandemWire

/// A test Redis server and an event-loop group, torn down together.
package struct RedisTestContext: Sendable {
    package let server: RedisServerProcess
    package let group: EventLoopGroup

    package var endpoint: RedisEndpoint { RedisEndpoint(host: "127.0.0.1", port: server.port) }

    /// Runs `body` with a fresh redis-server and a two-loop group; both are stopped afterwards.
    package static func with(_ body: (RedisTestContext) async throws -> Void) async throws {
        let server = try await RedisServerProcess.start()
        let group = try EventLoopGroup(threads: 2)
        do {
            try await body(RedisTestContext(server: server, group: group))
        } catch {
            await shutDown(server: server, group: group)
            throw error
        }
        await shutDown(server: server, group: group)
    }

    private static func shutDown(server: RedisServerProcess, group: EventLoopGroup) async {
        await server.stop()
        // Joining loop threads blocks: do it off the cooperative pool.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                group.shutdown()
                done.resume()
            }
        }
    }

    package func connect() async throws -> RedisConnection {
        try await RedisConnection.connect(to: endpoint, on: group.next())
    }

    /// Returns once the server reports a client blocked in a blocking command (bounded: 30 s).
    package func waitForBlockedClient(using connection: RedisConnection) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(30))
        while clock.now < deadline {
            let info = try await connection.send(["INFO", "clients"]).string ?? ""
            if info.contains("blocked_clients:1") { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("no client became blocked within 30 s")
    }

    package func client(clock: any Clock<Duration> = ContinuousClock(), random: any RandomByteSource = SecureRandom(), maxConnectAttempts: Int = 8) -> RedisClient {
        RedisClient(configuration: .init(endpoint: endpoint, maxConnectAttempts: maxConnectAttempts), group: group, clock: clock, random: random)
    }
}
