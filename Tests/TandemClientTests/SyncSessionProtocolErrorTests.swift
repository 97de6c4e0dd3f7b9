import Foundation
import Synchronization
import Testing
import TandemProtocol
import TandemTestSupport
import TandemWire
@testable import TandemClient

/// A WebSocket server that answers every `hello` with frames a test scripts, and records the close code
/// of each connection.
private final class ScriptedServer: Sendable {
    let server: WebSocketServer
    private let log: Log

    final class Log: Sendable {
        private let state = Mutex<(hellos: Int, closeCodes: [UInt16?])>((0, []))
        func hello() { state.withLock { $0.hellos += 1 } }
        func closed(_ code: UInt16?) { state.withLock { $0.closeCodes.append(code) } }
        var hellos: Int { state.withLock { $0.hellos } }
        var closeCodes: [UInt16?] { state.withLock { $0.closeCodes } }
    }

    init(group: EventLoopGroup, answer: @escaping @Sendable (_ client: String) -> [[UInt8]]) throws {
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        let log = Log()
        server = try WebSocketServer.start(configuration: configuration, group: group, routes: { _ in nil }) { _, _ in
            Handler(log: log, answer: answer)
        }
        self.log = log
    }

    var hellos: Int { log.hellos }
    var closeCodes: [UInt16?] { log.closeCodes }
    var url: String { "ws://127.0.0.1:\(server.port)/v1/sync" }

    func shutdown() async { await server.shutdownOffThePool() }

    private final class Handler: WebSocketHandler {
        let log: Log
        let answer: @Sendable (String) -> [[UInt8]]

        init(log: Log, answer: @escaping @Sendable (String) -> [[UInt8]]) {
            self.log = log
            self.answer = answer
        }

        func webSocketDidReceiveText(_ connection: WebSocketConnection, _ text: [UInt8]) {
            guard case .hello(let hello)? = try? ClientMessage.decode(text) else { return }
            log.hello()
            for frame in answer(hello.client) { connection.sendText(frame) }
        }

        func webSocketDidClose(_ connection: WebSocketConnection, code: UInt16?, reason: String, clean: Bool) {
            log.closed(code)
        }
    }
}

/// A server message the client cannot read ends that connection with a typed error and the normal
/// backoff; it never leaves the session waiting in `handshaking`.
@Suite struct SyncSessionProtocolErrorTests {
    private static func welcome(client: String, state: JSONValue = .emptyObject) -> [UInt8] {
        ServerMessage.welcome(Welcome(epoch: "e", rev: 0, sync: .state(state), lastSeq: 0,
                                      you: SessionIdentity(user: "u", client: client, role: .host), participants: [])).encoded()
    }

    private static func nested(_ levels: Int) -> JSONValue {
        var value: JSONValue = 1
        for _ in 0..<levels { value = ["x": value] }
        return value
    }

    /// Runs a session against `answer` with a welcome deadline far beyond the test's bound, so only the
    /// decode path can end the connection in time; returns its events once `done` holds.
    private func run(
        _ answer: @escaping @Sendable (String) -> [[UInt8]], until done: @escaping (ScriptedServer, [SyncSessionEvent]) -> Bool
    ) async throws -> (events: [SyncSessionEvent], states: [ConnectionState], server: ScriptedServer) {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let server = try ScriptedServer(group: group, answer: answer)
        let session = SyncSession(
            url: server.url, clientID: "a1", tokenProvider: { "t" },
            configuration: SyncSessionConfiguration(reconnect: ReconnectPolicy(backoff: Backoff(base: .seconds(0.01), cap: .seconds(0.02))),
                                                    welcomeTimeout: 600_000_000_000),
            transport: WireTransport(group: group))
        let events = StreamLog(session.events)
        let states = StreamLog(session.states)
        await session.start()
        #expect(await eventually(timeout: .seconds(20)) { done(server, events.all) })
        await session.stop()
        await server.shutdown()
        return (events.all, states.all, server)
    }

    private static func protocolErrors(_ events: [SyncSessionEvent]) -> [SyncProtocolError] {
        events.compactMap { if case .protocolError(let error) = $0 { error } else { nil } }
    }

    @Test func aWelcomeNestedTooDeepEndsTheAttemptAndIsRetried() async throws {
        let (events, states, server) = try await run({ [Self.welcome(client: $0, state: Self.nested(70))] }) { server, events in
            server.hellos >= 2 && Self.protocolErrors(events).count >= 2
        }
        let error = try #require(Self.protocolErrors(events).first)
        guard case .unreadableMessage(let type, let bytes, .malformedJSON(let parse)) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(type == "welcome")
        #expect(bytes > 70)
        #expect(parse.description.contains("64"))
        #expect(error.description.contains("\"welcome\" message"))
        #expect(!states.contains(.connected))
        #expect(states.contains { if case .reconnecting = $0 { true } else { false } })
        // The client said why it left.
        #expect(server.closeCodes.contains(CloseCode.invalidUTF8.rawValue))
    }

    @Test func aWelcomeMissingAFieldIsAProtocolErrorNamingTheField() async throws {
        let broken = Array(#"{"type":"welcome","epoch":"e","rev":0,"state":{}}"#.utf8)
        let (events, _, _) = try await run({ _ in [broken] }) { _, events in !Self.protocolErrors(events).isEmpty }
        #expect(Self.protocolErrors(events).first == .unreadableMessage(type: "welcome", bytes: broken.count, reason: .missingField("lastSeq")))
    }

    @Test func anUnreadableMessageAfterTheWelcomeEndsTheConnectionAndTheSessionReconnects() async throws {
        let garbage = Array(#"{"type":"patch","rev":1,"#.utf8)
        let (events, states, _) = try await run({ [Self.welcome(client: $0), garbage] }) { server, events in
            server.hellos >= 2 && !Self.protocolErrors(events).isEmpty
        }
        #expect(Self.protocolErrors(events).first.map { if case .unreadableMessage("patch", _, .malformedJSON) = $0 { true } else { false } } == true)
        let connected = try #require(states.firstIndex(of: .connected))
        let lost = try #require(states.firstIndex { if case .reconnecting = $0 { true } else { false } })
        #expect(connected < lost)
    }

    @Test func aMessageTypeFromANewerServerIsSkipped() async throws {
        let newer = Array(#"{"type":"from_the_future","x":1}"#.utf8)
        let (events, states, server) = try await run({ [Self.welcome(client: $0), newer, Self.welcome(client: $0, state: ["seen": true])] }) { _, events in
            events.contains { if case .stateChanged(let snapshot) = $0 { snapshot.state == ["seen": true] } else { false } }
        }
        #expect(Self.protocolErrors(events).isEmpty)
        #expect(server.hellos == 1)
        #expect(!states.contains { if case .reconnecting = $0 { true } else { false } })
    }

    @Test func theLeadingTypeIsReadWithoutParsing() {
        #expect(SyncProtocolError.leadingType(of: Array(#"{"type":"welcome","x":"#.utf8)) == "welcome")
        #expect(SyncProtocolError.leadingType(of: Array(#"{"x":1}"#.utf8)) == nil)
        #expect(SyncProtocolError.leadingType(of: Array(#"{"type":"we\"lcome"}"#.utf8)) == nil)
        #expect(SyncProtocolError.leadingType(of: Array(#"{"type":""#.utf8)) == nil)
    }
}
