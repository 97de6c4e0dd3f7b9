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
        let listener = try TCPListener.bind(host: "127.0.0.1", port: 0, group: group) { _ in GarbageServer() }
        let connection = try await RedisConnection.connect(to: RedisEndpoint(host: "127.0.0.1", port: listener.port), on: group.next())
        await #expect(throws: RedisError.protocolViolation(.unknownType(UInt8(ascii: "H")))) { try await connection.send(["PING"]) }
        #expect(!connection.isOpen)
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

/// Answers anything with an HTTP status line: not RESP.
private final class GarbageServer: TCPConnectionHandler {
    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        connection.write(Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {}
}
