import Foundation
import Synchronization
import Testing
import TandemRedis
import TandemTestSupport
import TandemWire

@Suite("Redis connection against redis-server", .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct RedisConnectionTests {
    @Test("commands round-trip binary-safe values; error replies are typed with their code")
    func commandsAndErrors() async throws {
        try await RedisTestContext.with { context in
            let connection = try await context.connect()
            #expect(try await connection.send(["SET", "k", RedisArgument(bytes: [0, 13, 10, 255])]) == .simpleString("OK"))
            #expect(try await connection.send(["GET", "k"]) == .bulkString([0, 13, 10, 255]))
            #expect(try await connection.send(["GET", "missing"]) == .null)
            await #expect(throws: RedisError.server(code: "WRONGTYPE", message: "WRONGTYPE Operation against a key holding the wrong kind of value")) {
                try await connection.send(["LPUSH", "k", "x"])
            }
            // The connection is still usable after an error reply.
            #expect(try await connection.send(["INCR", "n"]) == .integer(1))
            connection.close()
        }
    }

    @Test("after HELLO 3 the server speaks RESP3: maps, doubles, booleans and nulls decode")
    func resp3AgainstTheServer() async throws {
        try await RedisTestContext.with { context in
            let connection = try await context.connect()
            guard case .map(let hello) = try await connection.send(["HELLO", "3"]) else { Issue.record("HELLO 3 should answer a map"); return }
            #expect(hello.contains { $0.key.string == "proto" && $0.value == .integer(3) })
            _ = try await connection.send(["HSET", "h", "f", "v"])
            #expect(try await connection.send(["HGETALL", "h"]) == .map([RESPPair(key: .bulkString(Array("f".utf8)), value: .bulkString(Array("v".utf8)))]))
            #expect(try await connection.send(["GET", "missing"]) == .null)
            _ = try await connection.send(["ZADD", "z", "1.5", "m"])
            #expect(try await connection.send(["ZSCORE", "z", "m"]) == .double(1.5))
            // A script that switched to RESP3 returns Lua booleans as RESP3 booleans.
            #expect(try await connection.send(["EVAL", "redis.setresp(3); return true", "0"]) == .boolean(true))
            #expect(try await connection.send(["SMEMBERS", "nothing"]) == .set([]))
        }
    }

    @Test("many commands in flight from many tasks each get their own reply, in order")
    func pipelining() async throws {
        try await RedisTestContext.with { context in
            let connection = try await context.connect()
            let batch = (0..<500).map { ["ECHO", RedisArgument("m\($0)")] as [RedisArgument] }
            let replies = await connection.pipeline(batch)
            #expect(replies.map { try? $0.get() } == (0..<500).map { .bulkString(Array("m\($0)".utf8)) })

            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for task in 0..<20 {
                    tasks.addTask {
                        for index in 0..<50 {
                            let reply = try await connection.send(["ECHO", RedisArgument("t\(task)-\(index)")])
                            #expect(reply.string == "t\(task)-\(index)")
                        }
                    }
                }
                try await tasks.waitForAll()
            }
            // A pipeline with an error in the middle fails only that entry.
            let mixed = await connection.pipeline([["SET", "s", "1"], ["HGET", "s", "f"], ["GET", "s"]])
            #expect(try mixed[0].get() == .simpleString("OK"))
            #expect(throws: RedisError.self) { try mixed[1].get() }
            #expect(try mixed[2].get() == .bulkString(Array("1".utf8)))
        }
    }

    @Test("a blocking XREAD waits on its own connection while another connection keeps working")
    func blockingReadOnDedicatedConnection() async throws {
        try await RedisTestContext.with { context in
            let reader = try await context.connect()
            let writer = try await context.connect()
            let read = Task { try await reader.send(["XREAD", "BLOCK", "30000", "STREAMS", "events", "$"]) }
            // Wait until the server has the reader blocked, so the XADD below is what wakes it.
            try await context.waitForBlockedClient(using: writer)
            #expect(try await writer.send(["PING"]) == .simpleString("PONG"))
            _ = try await writer.send(["XADD", "events", "*", "field", "value"])
            let reply = try await read.value
            let entries = reply.array?.first?.array?[1].array
            #expect(entries?.count == 1)
            #expect(entries?.first?.array?[1] == .array([.bulkString(Array("field".utf8)), .bulkString(Array("value".utf8))]))
        }
    }

    @Test("when the server dies, commands in flight fail as lost and later ones as closed")
    func serverDeath() async throws {
        try await RedisTestContext.with { context in
            let connection = try await context.connect()
            let blocked = Task { try await connection.send(["BLPOP", "never", "30"]) }
            try await context.waitForBlockedClient(using: try await context.connect())
            await context.server.stop()
            do {
                _ = try await blocked.value
                Issue.record("the BLPOP should fail")
            } catch let error as RedisError {
                guard case .connectionLost = error else { Issue.record("expected connectionLost, got \(error)"); return }
                #expect(error.description.contains("may or may not have been applied"))
            }
            try await eventually("the connection notices", timeout: .seconds(30)) { !connection.isOpen }
            await #expect(throws: RedisError.connectionClosed(endpoint: context.endpoint)) { try await connection.send(["PING"]) }
        }
    }

    @Test("bytes that are not RESP close the connection with a protocol error")
    func protocolViolation() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { Thread.detachNewThread { group.shutdown() } }
        let listener = try TCPListener.bind(host: "127.0.0.1", port: 0, group: group) { _ in ScriptedServer() }
        let connection = try await RedisConnection.connect(to: RedisEndpoint(host: "127.0.0.1", port: listener.port), on: group.next())
        await #expect(throws: RedisError.protocolViolation(.unknownType(UInt8(ascii: "H")))) { try await connection.send(["PING"]) }
        #expect(!connection.isOpen)
        listener.loop.execute { listener.close() }
    }

    @Test("an out-of-band RESP3 push does not take the place of a command's reply")
    func pushIsNotAReply() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { Thread.detachNewThread { group.shutdown() } }
        let listener = try TCPListener.bind(host: "127.0.0.1", port: 0, group: group) { _ in ScriptedServer(reply: ">2\r\n+message\r\n+hi\r\n+PONG\r\n") }
        let connection = try await RedisConnection.connect(to: RedisEndpoint(host: "127.0.0.1", port: listener.port), on: group.next())
        #expect(try await connection.send(["PING"]) == .simpleString("PONG"))
        listener.loop.execute { listener.close() }
    }

    @Test("a connect to a closed port fails as unavailable with a hint")
    func unavailable() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { Thread.detachNewThread { group.shutdown() } }
        let port = try RedisServerProcess.freeLoopbackPort()
        do {
            _ = try await RedisConnection.connect(to: RedisEndpoint(host: "127.0.0.1", port: port), on: group.next())
            Issue.record("connect should fail")
        } catch {
            #expect(error.description.contains("is redis-server running"))
        }
    }
}

/// Answers every read with the same bytes.
private final class ScriptedServer: TCPConnectionHandler {
    let reply: String

    /// By default an HTTP status line: not RESP.
    init(reply: String = "HTTP/1.1 400 Bad Request\r\n\r\n") { self.reply = reply }

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        connection.write(Array(reply.utf8))
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {}
}
