import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TandemTestSupport
import TandemTesting
import TandemProtocol
import TandemWire
@testable import TandemServer

/// A WebSocket client speaking protocol v1 to a real server over loopback.
struct ProtocolClient {
    let socket: WebSocketClient
    private let inbox = Mailbox<WebSocketClientEvent>()

    static func connect(_ url: String, loop: EventLoop) async throws -> ProtocolClient {
        let socket = try await WebSocketClient.connect(url: url, subprotocols: [TandemProtocol.subprotocol], on: loop)
        let client = ProtocolClient(socket: socket)
        let inbox = client.inbox
        // Pump the single-consumer stream into a mailbox, so that a timed-out wait never cancels the stream.
        Task {
            for await event in socket.events { inbox.push(event) }
        }
        return client
    }

    func send(_ message: ClientMessage) async throws {
        try await socket.send(text: message.encoded())
    }

    /// The next server message; `nil` when the connection closed or nothing came in time.
    func next(timeout: Duration = .seconds(5)) async -> ServerMessage? {
        guard case .text(let bytes)? = await inbox.next(timeout: timeout) else { return nil }
        return try? ServerMessage.decode(bytes)
    }

    /// Reads until the connection closes; returns the close code.
    /// Reads until the first ack or reject (other messages are skipped), or nil when none comes.
    func answer(timeout: Duration = .seconds(30)) async -> ServerMessage? {
        while let message = await next(timeout: timeout) {
            switch message {
            case .ack, .reject: return message
            default: continue
            }
        }
        return nil
    }

    func closeCode(timeout: Duration = .seconds(5)) async -> UInt16? {
        while let event = await inbox.next(timeout: timeout) {
            if case .closed(let code, _) = event { return code }
        }
        return nil
    }
}

@Suite struct SyncServerTests {
    static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tandem-server-\(UUID().uuidString)").path
    }

    func startServer(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws -> (SyncServer, String) {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = Self.temporaryDirectory()
        // The whole suite runs in parallel on two cores: deadlines that are not under test get
        // room, so a starved test never trips them.
        configuration.helloTimeout = .seconds(60)
        configuration.handshakeTimeout = .seconds(60)
        adjust(&configuration)
        let server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "test"], logger: .discarding)
        return (server, configuration.dataDirectory)
    }

    func token(_ server: SyncServer, user: String, room: String = "lobby", role: Role = .host) -> String {
        server.tokens.mint(TokenClaims(sub: user, room: room, role: role, exp: server.tokens.currentTime + 600))
    }
}

extension SyncServerTests {
    private func httpGet(_ port: Int, _ path: String) async throws -> (status: Int, body: String) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func healthAndMetricsAnswerOverHTTP() async throws {
        let (server, directory) = try startServer()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let health = try await httpGet(server.port, "/healthz")
        #expect(health.status == 200)
        #expect(health.body == "ok\n")
        let metrics = try await httpGet(server.port, "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.body.contains("# TYPE tandem_connections gauge"))
        #expect(try await httpGet(server.port, "/nothing-here").status == 404)
        await server.shutdown()
    }

    @Test func twoClientsShareAPatchOverRealSockets() async throws {
        let (server, directory) = try startServer()
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown(); try? FileManager.default.removeItem(atPath: directory) }
        let alice = try await ProtocolClient.connect(server.syncURL, loop: group.next())
        let bob = try await ProtocolClient.connect(server.syncURL, loop: group.next())
        #expect(alice.socket.subprotocol == "tandem.v1")
        try await alice.send(.hello(Hello(token: token(server, user: "alice"), client: "a1")))
        guard case .welcome(let welcome)? = await alice.next() else { Issue.record("no welcome"); return }
        try await bob.send(.hello(Hello(token: token(server, user: "bob", role: .guest), client: "b1", resume: ResumePoint(epoch: welcome.epoch, rev: 0))))
        guard case .welcome(let bobWelcome)? = await bob.next() else { Issue.record("no welcome for bob"); return }
        #expect(bobWelcome.sync == .replay([]))
        #expect(await alice.next() == .join(Participant(user: "bob", client: "b1", role: .guest)))
        let op = PatchOp.set(try JSONPointer(parsing: "/contentOffset"), ["x": 0, "y": 420])
        try await alice.send(.patch(seq: 1, ops: [op]))
        #expect(await alice.next() == .ack(seq: 1, rev: 1, duplicate: false))
        #expect(await bob.next() == .patch(PatchEvent(rev: 1, user: "alice", client: "a1", seq: 1, ops: [op])))
        #expect(server.metrics.connections.value == 2)
        #expect(server.metrics.messagesIn.value >= 3)
        await bob.socket.close(code: 1000, reason: "")
        #expect(await alice.next() == .leave(Peer(user: "bob", client: "b1")))
        await server.shutdown()
    }

    /// The server's timers run on the scheduler it is given: a connection that sends no `hello` is closed when
    /// that scheduler's time passes the deadline, not before, whatever the wall clock does.
    @Test func theHelloDeadlineRunsOnTheInjectedScheduler() async throws {
        let scheduler = ManualTimerScheduler()
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.inMemoryStorage = true
        configuration.helloTimeout = .seconds(5)
        let server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "test"], logger: .discarding, scheduler: scheduler)
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let timersOfTheServer = scheduler.pendingCount
        let client = try await ProtocolClient.connect(server.syncURL, loop: group.next())
        try await eventually("the connection's deadline is scheduled") { scheduler.pendingCount > timersOfTheServer }
        scheduler.advance(by: .milliseconds(4_999))
        #expect(server.metrics.connections.value == 1, "still open just before the deadline")
        scheduler.advance(by: .milliseconds(1))
        if case .error(.helloTimeout, _)? = await client.next() {} else { Issue.record("no hello_timeout error") }
        #expect(await client.closeCode() == 4008)
        await server.shutdown()
    }

    @Test func aBadTokenNeverGetsAWelcome() async throws {
        let (server, directory) = try startServer()
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown(); try? FileManager.default.removeItem(atPath: directory) }
        let client = try await ProtocolClient.connect(server.syncURL, loop: group.next())
        try await client.send(.hello(Hello(token: "eyJhbGciOiJub25lIn0.e30.", client: "x")))
        if case .error(.unauthorized, _)? = await client.next() {} else { Issue.record("no unauthorized error") }
        #expect(await client.closeCode() == 4001)
        await server.shutdown()
    }

    @Test func shutdownClosesEveryConnectionWith1001() async throws {
        let (server, directory) = try startServer()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let client = try await ProtocolClient.connect(server.syncURL, loop: group.next())
        try await client.send(.hello(Hello(token: token(server, user: "alice"), client: "a1")))
        _ = await client.next()
        await server.shutdown()
        #expect(await client.closeCode() == 1001)
    }

    @Test func acknowledgedPatchesSurviveAServerRestartWithTheSameEpoch() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        var epoch = ""
        do {
            let (server, _) = try startServer { $0.dataDirectory = directory }
            let client = try await ProtocolClient.connect(server.syncURL, loop: group.next())
            try await client.send(.hello(Hello(token: token(server, user: "alice"), client: "a1")))
            guard case .welcome(let welcome)? = await client.next() else { Issue.record("no welcome"); return }
            epoch = welcome.epoch
            for seq in 1...20 { try await client.send(.patch(seq: Int64(seq), ops: [.set(try JSONPointer(parsing: "/n"), .number(Double(seq)))])) }
            for _ in 1...20 { _ = await client.next() }
            await server.shutdown()
        }
        let (server, _) = try startServer { $0.dataDirectory = directory }
        let client = try await ProtocolClient.connect(server.syncURL, loop: group.next())
        try await client.send(.hello(Hello(token: token(server, user: "alice"), client: "a1", resume: ResumePoint(epoch: epoch, rev: 15))))
        let answer = await client.next()
        await server.shutdown()
        guard case .welcome(let welcome)? = answer else { Issue.record("no welcome after restart"); return }
        #expect(welcome.epoch == epoch)
        #expect(welcome.rev == 20)
        #expect(welcome.lastSeq == 20)
        guard case .replay(let events) = welcome.sync else { Issue.record("no replay after restart"); return }
        #expect(events.map(\.rev) == [16, 17, 18, 19, 20])
    }

    @Test func aSecondServerOnTheSameDataFolderRefusesToStartUntilTheFirstStops() async throws {
        let (first, directory) = try startServer()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: ServerStartError.self) { _ = try startServer { $0.dataDirectory = directory } }
        if case .storage(.journal(let message))? = error {
            #expect(message.contains("in use by another Tandem server"))
        } else {
            Issue.record("expected a journal error, got \(String(describing: error))")
        }
        await first.shutdown()
        let (second, _) = try startServer { $0.dataDirectory = directory }
        await second.shutdown()
    }
}

extension SyncServerTests {
    @Test func concurrentWritersOverRealSocketsSeeOneContiguousOrder() async throws {
        let (server, directory) = try startServer { $0.rateLimit = 0 }
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown(); try? FileManager.default.removeItem(atPath: directory) }
        let writers = 4, patchesEach = 30
        var clients: [ProtocolClient] = []
        for index in 0..<writers {
            let client = try await ProtocolClient.connect(server.syncURL, loop: group.next())
            try await client.send(.hello(Hello(token: token(server, user: "u\(index)"), client: "c\(index)")))
            guard case .welcome? = await client.next() else { Issue.record("no welcome"); return }
            clients.append(client)
        }
        // Drain join events: client i sees the writers - 1 - i that joined after it.
        for (index, client) in clients.enumerated() {
            for _ in 0..<(writers - 1 - index) { _ = await client.next() }
        }
        await withTaskGroup(of: Void.self) { tasks in
            for (index, client) in clients.enumerated() {
                tasks.addTask {
                    for seq in 1...patchesEach {
                        try? await client.send(.patch(seq: Int64(seq), ops: [.set(try! JSONPointer(parsing: "/w\(index)"), .number(Double(seq)))]))
                    }
                }
            }
        }
        for (index, client) in clients.enumerated() {
            var revs: [Int64] = []
            while revs.count < writers * patchesEach, let message = await client.next() {
                switch message {
                case .ack(_, let rev, _, _): revs.append(rev)
                case .patch(let event): revs.append(event.rev)
                default: Issue.record("unexpected \(message)")
                }
            }
            #expect(revs == Array(1...Int64(writers * patchesEach)), "connection \(index) saw a gap or a reordering")
        }
        await server.shutdown()
    }

    @Test func anOversizedMessageClosesWith1009AndOthersKeepWorking() async throws {
        let (server, directory) = try startServer { $0.maxMessageBytes = 4096 }
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown(); try? FileManager.default.removeItem(atPath: directory) }
        let good = try await ProtocolClient.connect(server.syncURL, loop: group.next())
        try await good.send(.hello(Hello(token: token(server, user: "alice"), client: "a1")))
        _ = await good.next()
        let bad = try await ProtocolClient.connect(server.syncURL, loop: group.next())
        try await bad.send(.hello(Hello(token: token(server, user: "bob"), client: "b1")))
        _ = await bad.next()
        let huge = String(repeating: "x", count: 8192)
        try await bad.send(.patch(seq: 1, ops: [.set(try JSONPointer(parsing: "/big"), .string(huge))]))
        #expect(await bad.closeCode() == 1009)
        try await good.send(.patch(seq: 1, ops: [.set(try JSONPointer(parsing: "/n"), 1)]))
        var acked = false
        while let message = await good.next() {
            if case .ack(1, 1, false, _) = message { acked = true; break }
        }
        #expect(acked)
        await server.shutdown()
    }
}
