import Foundation
import TandemTesting
import Testing
import TandemKit
import TandemRedis
import TandemTestSupport
import TandemWire

@Suite("Redis client: reconnect and scripts", .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct RedisClientTests {
    /// Always the same bytes: a unit of exactly 0.5 (0x80 followed by zeros).
    struct HalfRandom: RandomByteSource {
        func bytes(count: Int) -> [UInt8] { [0x80] + Array(repeating: 0, count: count - 1) }
    }

    @Test("after the server restarts, the client reconnects with jittered exponential backoff on the injected clock")
    func reconnectsWithBackoff() async throws {
        try await RedisTestContext.with { context in
            let clock = ManualClock()
            let client = RedisClient(
                configuration: .init(endpoint: context.endpoint, backoff: Backoff(base: .milliseconds(100), cap: .seconds(5))),
                group: context.group, clock: clock, random: HalfRandom())
            #expect(try await client.send(["SET", "before", "1"]) == .simpleString("OK"))
            await context.server.stop()

            let command = Task { try await client.send(["PING"]) }
            // Attempt 1 fails; with unit 0.5 the client sleeps 50 ms (half of the 100 ms ceiling).
            await clock.waitForSleepers(1)
            clock.advance(by: .milliseconds(49))
            #expect(clock.sleeperCount == 1)
            clock.advance(by: .milliseconds(1))
            // Attempt 2 fails; the ceiling doubles, so the sleep is 100 ms.
            await clock.waitForSleepers(1)
            clock.advance(by: .milliseconds(99))
            #expect(clock.sleeperCount == 1)
            let restarted = try await RedisServerProcess.start(port: context.server.port)
            clock.advance(by: .milliseconds(1))
            #expect(try await command.value == .simpleString("PONG"))
            #expect(await client.connectionCount == 2)
            await restarted.stop()
        }
    }

    @Test("when no connect succeeds within the attempts, the command fails as unavailable")
    func givesUpAfterMaxAttempts() async throws {
        try await RedisTestContext.with { context in
            let clock = ManualClock()
            let client = context.client(clock: clock, random: HalfRandom(), maxConnectAttempts: 3)
            await context.server.stop()
            let command = Task { try await client.send(["PING"]) }
            for _ in 0..<2 {
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(10))
            }
            do {
                _ = try await command.value
                Issue.record("the command should fail")
            } catch let error as RedisError {
                guard case .unavailable(_, let attempts, _) = error else { Issue.record("got \(error)"); return }
                #expect(attempts == 3)
                #expect(error.description.contains("after 3 attempt(s)"))
            }
        }
    }

    @Test("a LOADING reply (a restarted server reading its data) is retried after the backoff")
    func retriesWhileLoading() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { Thread.detachNewThread { group.shutdown() } }
        let listener = try TCPListener.bind(host: "127.0.0.1", port: 0, group: group) { _ in LoadingServer(loadingReplies: 2) }
        let clock = ManualClock()
        let client = RedisClient(configuration: .init(endpoint: RedisEndpoint(host: "127.0.0.1", port: listener.port)),
                                 group: group, clock: clock, random: HalfRandom())
        let command = Task { try await client.send(["PING"]) }
        for _ in 0..<2 {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(10))
        }
        #expect(try await command.value == .simpleString("PONG"))
        #expect(await client.connectionCount == 1)
        listener.loop.execute { listener.close() }
    }

    @Test("EVALSHA falls back to EVAL when the script cache was flushed, and a script's error is typed")
    func scriptFallback() async throws {
        try await RedisTestContext.with { context in
            let client = context.client()
            let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])")
            #expect(try await client.evaluate(script, keys: ["counter"], arguments: [5]) == .integer(5))
            // Now cached: EVALSHA alone works.
            #expect(try await client.send(["EVALSHA", RedisArgument(script.sha1), "1", "counter", "1"]) == .integer(6))
            _ = try await client.send(["SCRIPT", "FLUSH"])
            #expect(try await client.evaluate(script, keys: ["counter"], arguments: [1]) == .integer(7))
            let failing = RedisScript("return redis.error_reply('LIMIT too many ops')")
            await #expect(throws: RedisError.server(code: "LIMIT", message: "LIMIT too many ops")) {
                try await client.evaluate(failing, keys: [], arguments: [])
            }
        }
    }
}

/// Answers the first `loadingReplies` commands with LOADING, then PONG (one command per read is enough here).
private final class LoadingServer: TCPConnectionHandler {
    private var loadingReplies: Int

    init(loadingReplies: Int) { self.loadingReplies = loadingReplies }

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        if loadingReplies > 0 {
            loadingReplies -= 1
            connection.write(Array("-LOADING Redis is loading the dataset in memory\r\n".utf8))
        } else {
            connection.write(Array("+PONG\r\n".utf8))
        }
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {}
}
