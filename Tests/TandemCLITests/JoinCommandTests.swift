import Foundation
import Synchronization
import Testing
import TandemClient
import TandemProtocol
import TandemServer
import TandemTestSupport
import TandemWire
@testable import TandemCLI

/// An in-process server and event loops for `tandem join` runs.
final class JoinHarness: Sendable {
    let server: SyncServer
    let directory: String
    let group: EventLoopGroup
    /// `SyncServer.shutdown` must run once: a test that stops the server early claims it here.
    private let serverRunning = Mutex(true)

    /// `wallClock` (unix ms) is the server's clock: patch times, token expiry.
    init(wallClock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1_000) }) throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-join-\(UUID().uuidString)").path
        // The suite runs in parallel on two cores: deadlines not under test get room.
        configuration.helloTimeout = .seconds(60)
        configuration.handshakeTimeout = .seconds(60)
        server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "test"], logger: .discarding, wallClock: wallClock)
        directory = configuration.dataDirectory
        group = try EventLoopGroup(threads: 1)
    }

    func token(user: String, role: Role = .host) -> String {
        server.tokens.mint(TokenClaims(sub: user, room: "lobby", role: role, exp: server.tokens.currentTime + 600))
    }

    func options(user: String, client: String, role: Role = .host, url: String? = nil, drain: Duration = .seconds(10)) -> JoinCommand.Options {
        JoinCommand.Options(url: url ?? server.syncURL, token: token(user: user, role: role), clientID: client, name: nil, drainTimeout: drain)
    }

    /// Runs `tandem join`'s core on `lines` and returns its exit code and output.
    func join(_ lines: [String], options: JoinCommand.Options) async -> (status: Int32, console: RecordingConsole) {
        let console = RecordingConsole()
        let runner = JoinRunner(session: try! JoinCommand.session(for: options), console: console, drainTimeout: options.drainTimeout)
        let status = await runner.run(lines: AsyncStream { sink in
            for line in lines { sink.yield(line) }
            sink.finish()
        })
        return (status, console)
    }

    /// Stops the server (once, however often it is called).
    func stopServer() async {
        let running = serverRunning.withLock { running in
            defer { running = false }
            return running
        }
        if running { await server.shutdown() }
    }

    func shutdown() async {
        await stopServer()
        group.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

private func parsed(_ lines: [String]) -> [JSONValue] {
    lines.compactMap { try? JSONValue.parse($0) }
}

@Suite struct JoinCommandTests {
    @Test func linesBecomePatchesAndTheFinalStateIsPrintedLast() async throws {
        let harness = try JoinHarness()
        let run = await harness.join(
            [#"[{"op":"set","path":"/tabIndex","value":1}]"#, "", #"[{"op":"set","path":"/marks/a","value":true},{"op":"remove","path":"/tabIndex"}]"#],
            options: harness.options(user: "alice", client: "a1"))
        #expect(run.status == ExitCode.success)
        #expect(run.console.stderr.isEmpty)
        let events = parsed(run.console.stdout)
        #expect(events.count == run.console.stdout.count, "every stdout line is one JSON object")
        #expect(events.contains(["event": "status", "status": "connected"]))
        #expect(events.last == ["event": "state", "rev": 2, "pending": 0, "state": ["marks": ["a": true]]])
        // The optimistic state shows before any ack: a state line with pending > 0.
        #expect(events.contains { $0["event"] == "state" && $0["pending"] != 0 })
        await harness.shutdown()
    }

    @Test func theRFC6902OpsAreAcceptedAndAFailedTestIsReportedForItsLine() async throws {
        let harness = try JoinHarness()
        let run = await harness.join(
            [#"[{"op":"add","path":"/cart","value":[]},{"op":"add","path":"/cart/-","value":"shoes"},{"op":"copy","from":"/cart/0","path":"/cart/-"}]"#,
             #"[{"op":"test","path":"/cart/0","value":"hat"},{"op":"remove","path":"/cart/0"}]"#,
             #"[{"op":"move","from":"/cart/1","path":"/saved"}]"#],
            options: harness.options(user: "alice", client: "a1"))
        #expect(run.status == ExitCode.success)
        #expect(run.console.stderr.count == 1)
        // Refused before it is sent: it does not apply to the state this participant has.
        #expect(run.console.stderr.first?.contains("line 2: the change does not apply to the shared state: op 0: test failed") == true,
                "\(run.console.stderr)")
        #expect(parsed(run.console.stdout).last == ["event": "state", "rev": 2, "pending": 0, "state": ["cart": ["shoes"], "saved": "shoes"]])
        await harness.shutdown()
    }

    @Test func aBadLineIsReportedAndTheRestStillApplies() async throws {
        let harness = try JoinHarness()
        let run = await harness.join(
            ["not json", #"[{"op":"jump","path":"/x"}]"#, #"[{"op":"set","path":"/x","value":2}]"#],
            options: harness.options(user: "alice", client: "a1"))
        #expect(run.status == ExitCode.success)
        #expect(run.console.stderr.count == 2)
        #expect(run.console.stderr.first?.hasPrefix("tandem join: line 1: not a JSON array of ops") == true)
        #expect(run.console.stderr.last?.hasPrefix("tandem join: line 2:") == true)
        #expect(parsed(run.console.stdout).last == ["event": "state", "rev": 1, "pending": 0, "state": ["x": 2]])
        await harness.shutdown()
    }

    @Test func rejectedChangesAreReportedOnStderrAndStillSettle() async throws {
        let harness = try JoinHarness()
        let run = await harness.join([#"[{"op":"set","path":"/x","value":2}]"#], options: harness.options(user: "vera", client: "v1", role: .viewer))
        #expect(run.status == ExitCode.success)
        #expect(run.console.stderr.contains { $0.contains("rejected (forbidden)") })
        #expect(parsed(run.console.stdout).last == ["event": "state", "rev": 0, "pending": 0, "state": [:]])
        await harness.shutdown()
    }

    @Test func anotherParticipantSeesTheChangesAndTheJoin() async throws {
        let harness = try JoinHarness()
        let watcher = RecordingConsole()
        let watching = Task {
            await JoinRunner(
                session: try! JoinCommand.session(for: harness.options(user: "bob", client: "b1")),
                console: watcher, drainTimeout: .seconds(1)
            ).run(lines: AsyncStream<String> { sink in
                Task {
                    // Keep bob's input open until alice's change reached him.
                    let deadline = ContinuousClock.now + .seconds(10)
                    while ContinuousClock.now < deadline, !watcher.stdout.contains(where: { $0.contains(#""state":{"seen":1}"#) }) {
                        try? await Task.sleep(for: .milliseconds(5))
                    }
                    sink.finish()
                }
            })
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, !watcher.stdout.contains(where: { $0.contains(#""status":"connected""#) }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let alice = await harness.join([#"[{"op":"set","path":"/seen","value":1}]"#], options: harness.options(user: "alice", client: "a1"))
        #expect(alice.status == ExitCode.success)
        #expect(await watching.value == ExitCode.success)
        let events = parsed(watcher.stdout)
        // Bob hears of alice by a join, or, when his connection was replaced meanwhile (a stalled, loaded test
        // process can miss heartbeats), by the next welcome's participants.
        let heard = events.contains { $0["event"] == "join" && $0["user"] == "alice" }
            || events.contains { $0["event"] == "welcome" && $0["participants"]?.arrayValue?.contains { $0["user"] == "alice" } == true }
        #expect(heard, "\(watcher.stdout)")
        #expect(events.last == ["event": "state", "rev": 1, "pending": 0, "state": ["seen": 1]])
        await harness.shutdown()
    }

    @Test func undeliveredChangesExitWithFailureAfterTheDrainTimeout() async throws {
        let harness = try JoinHarness()
        let url = harness.server.syncURL
        await harness.stopServer()
        let run = await harness.join([#"[{"op":"set","path":"/x","value":1}]"#], options: harness.options(user: "alice", client: "a1", url: url, drain: .milliseconds(200)))
        #expect(run.status == ExitCode.failure)
        #expect(run.console.stderr.last == "tandem join: 1 change(s) could not be delivered within 0.2 seconds")
        #expect(parsed(run.console.stdout).last == ["event": "state", "rev": 0, "pending": 1, "state": ["x": 1]])
        await harness.shutdown()
    }

    @Test func aWelcomeItCannotReadIsAProtocolErrorOnStderrNotAHang() async throws {
        let harness = try JoinHarness()
        // A server whose welcome nests deeper than any client parser reads.
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        let server = try WebSocketServer.start(configuration: configuration, group: harness.group, routes: { _ in nil }) { _, _ in
            DeepWelcomeHandler()
        }
        let url = "ws://127.0.0.1:\(server.port)/v1/sync"
        let run = await harness.join([#"[{"op":"set","path":"/x","value":1}]"#],
                                     options: harness.options(user: "alice", client: "a1", url: url, drain: .seconds(1)))
        #expect(run.status == ExitCode.failure)
        let errors = run.console.stderr.filter { $0.hasPrefix("tandem join: protocol error: ") }
        #expect(!errors.isEmpty, "stderr: \(run.console.stderr)")
        #expect(errors.first?.contains(#"a "welcome" message"#) == true)
        #expect(errors.first?.contains("deeper than 64") == true)
        #expect(!parsed(run.console.stdout).contains { $0["status"] == "connected" })
        await server.shutdownOffThePool()
        await harness.shutdown()
    }

    @Test func aRefusedTokenEndsWithFailure() async throws {
        let harness = try JoinHarness()
        var options = harness.options(user: "alice", client: "a1")
        options.token = "not-a-token"
        let run = await harness.join([], options: options)
        #expect(run.status == ExitCode.failure)
        #expect(run.console.stderr.last?.contains("token was refused") == true)
        await harness.shutdown()
    }

    @Test func commandLineErrorsAreUsageErrors() async {
        let invite = await runTandem(["join", "--url", "ws://127.0.0.1:1/v1/sync", "--invite", "abc"])
        #expect(invite.status == ExitCode.usage)
        #expect(invite.console.stderr.first?.contains("code of 6 to 12 digits") == true)
        let both = await runTandem(["join", "--url", "http://127.0.0.1:1", "--invite", "123456", "--token", "t"])
        #expect(both.status == ExitCode.usage)
        #expect(both.console.stderr.first?.contains("not both") == true)
        let badScheme = await runTandem(["join", "--url", "ftp://127.0.0.1:1", "--invite", "123456"])
        #expect(badScheme.status == ExitCode.usage)
        let missingCA = await runTandem(["join", "--url", "wss://127.0.0.1:1/v1/sync", "--token", "t", "--ca-file", "/nonexistent/ca.pem"])
        #expect(missingCA.status == ExitCode.usage)
        #expect(missingCA.console.stderr.first?.contains("readable PEM file") == true)
        let noToken = await runTandem(["join", "--url", "ws://127.0.0.1:1/v1/sync"])
        #expect(noToken.status == ExitCode.usage)
        #expect(noToken.console.stderr.first == "tandem join: error: missing required option '--token'")
        let badURL = await runTandem(["join", "--url", "http://x", "--token", "t"])
        #expect(badURL.status == ExitCode.usage)
        let badTimeout = await runTandem(["join", "--url", "ws://x/v1/sync", "--token", "t", "--drain-timeout", "-1"])
        #expect(badTimeout.status == ExitCode.usage)
    }
}

/// Answers every hello with a welcome whose state is 70 levels deep.
private final class DeepWelcomeHandler: WebSocketHandler {
    func webSocketDidReceiveText(_ connection: WebSocketConnection, _ text: [UInt8]) {
        guard case .hello(let hello)? = try? ClientMessage.decode(text) else { return }
        var state: JSONValue = 1
        for _ in 0..<70 { state = ["x": state] }
        connection.sendText(ServerMessage.welcome(Welcome(epoch: "e", rev: 0, sync: .state(state), lastSeq: 0,
                                                          you: SessionIdentity(user: "u", client: hello.client, role: .host),
                                                          participants: [])).encoded())
    }

    func webSocketDidClose(_ connection: WebSocketConnection, code: UInt16?, reason: String, clean: Bool) {}
}
