import Synchronization
import Testing
import TandemTestSupport
@testable import TandemWire

@Suite struct TCPEchoTests {
    /// Connects `clients` clients to an echo server on `host`, has each send `messages` distinct messages
    /// (from the test's thread, through the thread-safe `send`), and checks every byte comes back in order.
    private func runEcho(host: String, clients: Int, messages: Int, messageSize: Int) async throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown() }
        let listener = try TCPListener.bind(host: host, port: 0, group: group) { _ in RecordingHandler(echo: true) }
        var connections: [(TCPConnection, RecordingHandler, [UInt8])] = []
        for index in 0..<clients {
            let handler = RecordingHandler()
            let connection = try await TCPConnection.connect(host: host, port: listener.port, on: group.next()) { _ in handler }
            var expected: [UInt8] = []
            for message in 0..<messages {
                expected.append(contentsOf: pattern(count: messageSize, seed: index * 1_000 + message))
            }
            connections.append((connection, handler, expected))
        }
        for message in 0..<messages {
            for (index, (connection, _, _)) in connections.enumerated() {
                connection.send(pattern(count: messageSize, seed: index * 1_000 + message))
            }
        }
        let total = clients * messages * messageSize
        try await eventually("all bytes echoed", timeout: .seconds(10)) {
            connections.reduce(0) { $0 + $1.1.receivedCount } >= total
        }
        for (_, handler, expected) in connections {
            #expect(handler.snapshot.received == expected)
        }
        #expect(listener.connectionCount == clients)
    }

    @Test func twoHundredClientsGetEveryByteBackInOrder() async throws {
        try await runEcho(host: "127.0.0.1", clients: 200, messages: 20, messageSize: 100)
    }

    @Test func echoWorksOverIPv6Loopback() async throws {
        try await runEcho(host: "::1", clients: 20, messages: 10, messageSize: 1_000)
    }

    @Test func messagesLargerThanTheReadBufferArriveWhole() async throws {
        try await runEcho(host: "127.0.0.1", clients: 3, messages: 2, messageSize: 300_000)
    }

    @Test func sharedBytesFanOutToManyConnectionsOnEveryLoop() async throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown() }
        let (listener, serverSide) = try listenLogging(host: "127.0.0.1", group: group) { _ in RecordingHandler() }
        var clients: [RecordingHandler] = []
        for _ in 0..<50 {
            let handler = RecordingHandler()
            _ = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, on: group.next()) { _ in handler }
            clients.append(handler)
        }
        try await eventually("all accepted") { serverSide.count == 50 }
        let messages = (0..<30).map { SharedBytes(pattern(count: 64, seed: $0)) }
        // One hop per loop, as a room would do: every message to every member on that loop.
        for loop in group.loops {
            let members = serverSide.all.map(\.connection).filter { $0.loop === loop }
            loop.execute {
                for message in messages {
                    for member in members { member.write(message) }
                }
            }
        }
        let expected = messages.flatMap(\.bytes)
        try await eventually("fan-out delivered") { clients.allSatisfy { $0.receivedCount >= expected.count } }
        #expect(clients.allSatisfy { $0.snapshot.received == expected })
    }
}
