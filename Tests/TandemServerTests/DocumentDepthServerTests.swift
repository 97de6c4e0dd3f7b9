import Foundation
import Testing
import TandemProtocol
import TandemWire
@testable import TandemServer

/// The depth rule as the server applies it: patches, presence and signals past `--max-depth` are
/// refused and the room stays readable for everyone; a room stored deeper than the limit still loads.
@Suite struct DocumentDepthServerTests {
    private static func nested(_ levels: Int) -> JSONValue {
        var value: JSONValue = 1
        for _ in 0..<levels { value = ["x": value] }
        return value
    }

    private static func path(_ tokens: Int, under prefix: [String] = []) -> JSONPointer {
        JSONPointer(tokens: prefix + Array(repeating: "x", count: tokens))
    }

    private func start(data: String, maxDepth: Int = PatchLimits.defaultMaxDepth, log: RecordingLogSink? = nil) throws -> SyncServer {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = data
        configuration.helloTimeout = .seconds(60)
        configuration.handshakeTimeout = .seconds(60)
        configuration.maxDepth = maxDepth
        let logger = log.map { Logger(sink: $0, level: .info) } ?? .discarding
        return try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "test"], logger: logger)
    }

    private func join(_ server: SyncServer, user: String, client: String, role: Role = .guest, presence: JSONValue? = nil,
                      loop: EventLoop) async throws -> (ProtocolClient, Welcome) {
        let (connection, welcome, _) = try await joinReadingAll(server, user: user, client: client, role: role, presence: presence, loop: loop)
        return (connection, welcome)
    }

    /// Joins and also returns what came before the welcome.
    private func joinReadingAll(_ server: SyncServer, user: String, client: String, role: Role = .guest, presence: JSONValue? = nil,
                                loop: EventLoop) async throws -> (ProtocolClient, Welcome, [ServerMessage]) {
        let token = server.tokens.mint(TokenClaims(sub: user, room: "shop", role: role, exp: server.tokens.currentTime + 600))
        let connection = try await ProtocolClient.connect(server.syncURL, loop: loop)
        try await connection.send(.hello(Hello(token: token, client: client, presence: presence)))
        var before: [ServerMessage] = []
        while let message = await connection.next() {
            if case .welcome(let welcome) = message { return (connection, welcome, before) }
            before.append(message)
        }
        throw CrashDurabilityTests.CrashTestError("no welcome for \(client)")
    }

    /// The next message that is not presence traffic of others.
    private func nextOwn(_ connection: ProtocolClient) async -> ServerMessage? {
        while let message = await connection.next() {
            switch message {
            case .join, .leave, .presence: continue
            default: return message
            }
        }
        return nil
    }

    @Test func aGuestCannotPoisonTheRoomAndEveryoneCanStillJoin() async throws {
        let data = SyncServerTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let server = try start(data: data)
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let (guest, welcome) = try await join(server, user: "mallory", client: "m1", loop: group.next())
        #expect(welcome.limits.maxDepth == 32)
        try await guest.send(.patch(seq: 1, ops: [.set(Self.path(70), 1)]))
        guard case .reject(1, .tooDeep, let message)? = await nextOwn(guest) else { Issue.record("no too_deep reject"); return }
        #expect(message.contains("70 levels deep; at most 32"))
        try await guest.send(.patch(seq: 2, ops: [.set(Self.path(10), Self.nested(60))]))
        guard case .reject(2, .tooDeep, _)? = await nextOwn(guest) else { Issue.record("no too_deep reject"); return }
        // The deepest allowed write is taken.
        try await guest.send(.patch(seq: 3, ops: [.set(Self.path(2, under: ["cart"]), Self.nested(29))]))
        guard case .ack(3, _, false, _)? = await nextOwn(guest) else { Issue.record("no ack"); return }

        // Presence and signal data past the limit are refused with an error; the connection stays.
        try await guest.send(.presence(data: Self.nested(33)))
        guard case .error(.tooDeep, let presenceMessage)? = await nextOwn(guest) else { Issue.record("no too_deep error"); return }
        #expect(presenceMessage.contains("presence.data nests 33 levels deep"))
        try await guest.send(.signal(event: "e", data: Self.nested(40)))
        guard case .error(.tooDeep, _)? = await nextOwn(guest) else { Issue.record("no too_deep error"); return }
        try await guest.send(.ping(t: 7))
        guard case .pong(7)? = await nextOwn(guest) else { Issue.record("the connection did not stay open"); return }

        // A newcomer reads the whole state, and a hello with too deep presence joins with none.
        let (_, hostWelcome, beforeWelcome) = try await joinReadingAll(server, user: "alice", client: "a1", role: .host,
                                                                       presence: Self.nested(50), loop: group.next())
        guard case .state(let state) = hostWelcome.sync else { Issue.record("expected a snapshot"); return }
        #expect(state.depth == 32)
        #expect(hostWelcome.participants.first { $0.client == "a1" }?.data == .emptyObject)
        guard case .error(.tooDeep, let helloMessage)? = beforeWelcome.first else { Issue.record("hello presence not refused"); return }
        #expect(helloMessage.contains("hello.presence"))
        await server.shutdown()
    }

    @Test func aRoomStoredDeeperThanTheLimitLoadsIsServedAndCannotGrowDeeper() async throws {
        let data = SyncServerTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let first = try start(data: data, maxDepth: PatchLimits.deepestAllowed)
        let (writer, _) = try await join(first, user: "alice", client: "a1", role: .host, loop: group.next())
        try await writer.send(.patch(seq: 1, ops: [.set(Self.path(1, under: ["deep"]), Self.nested(48)), .set(JSONPointer(tokens: ["flat"]), 1)]))
        guard case .ack? = await nextOwn(writer) else { Issue.record("no ack"); return }
        await first.shutdown()

        let log = RecordingLogSink()
        let second = try start(data: data, log: log)
        let (reader, welcome) = try await join(second, user: "bob", client: "b1", loop: group.next())
        guard case .state(let state) = welcome.sync else { Issue.record("expected a snapshot"); return }
        #expect(state.depth == 50)
        #expect(welcome.limits.maxDepth == 32)
        let warning = log.all.first { $0.event == "room.deeper_than_limit" }
        #expect(warning?.level == .warning)
        #expect(warning?.fields.contains { $0.key == "depth" && $0.value == "50" } == true)
        // Writes that land past the limit are refused even inside the deep part; shallow ones and removals work.
        try await reader.send(.patch(seq: 1, ops: [.set(Self.path(40, under: ["deep"]), 2)]))
        guard case .reject(1, .tooDeep, _)? = await nextOwn(reader) else { Issue.record("no too_deep reject"); return }
        try await reader.send(.patch(seq: 2, ops: [.set(JSONPointer(tokens: ["flat"]), 2), .remove(Self.path(10, under: ["deep"]))]))
        guard case .ack(2, _, false, _)? = await nextOwn(reader) else { Issue.record("no ack"); return }
        let (_, later) = try await join(second, user: "carol", client: "c1", loop: group.next())
        guard case .state(let after) = later.sync else { Issue.record("expected a snapshot"); return }
        #expect(after.depth == 11)
        #expect(after["flat"] == 2)
        await second.shutdown()
    }
}
