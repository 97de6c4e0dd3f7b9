import Synchronization
import Testing
import TandemClient
import TandemProtocol
import TandemTestSupport
@testable import TandemCLI

@Suite struct ReplayCommandTests {
    private static func ops(_ text: String) throws -> [PatchOp] { try PatchOp.list(from: try JSONValue.parse(text)) }

    /// Writes three patches to `lobby` through the rooms API.
    private static func record(_ harness: JoinHarness) async throws -> RoomsClient {
        let client = RoomsClient(baseURL: "http://127.0.0.1:\(harness.server.port)", token: harness.token(user: "alice"), group: harness.group)
        try await client.write("lobby", ops: try ops(#"[{"op":"set","path":"/cart","value":[]}]"#))
        try await client.write("lobby", ops: try ops(#"[{"op":"add","path":"/cart/-","value":"hat"}]"#))
        try await client.write("lobby", ops: try ops(#"[{"op":"add","path":"/cart/-","value":"shoes"}]"#))
        return client
    }

    @Test func theHistoryIsPrintedAsJSONLinesWithTheStateAfterEachPatch() async throws {
        let harness = try JoinHarness()
        _ = try await Self.record(harness)
        let base = "http://127.0.0.1:\(harness.server.port)"
        let run = await runTandem(["replay", "--url", base, "--token", harness.token(user: "alice", role: .viewer), "--speed", "0"])
        #expect(run.status == ExitCode.success, "\(run.console.stderr)")
        let lines = try run.console.stdout.map { try JSONValue.parse(Array($0.utf8)) }
        #expect(lines.map { $0["rev"] } == [1, 2, 3])
        #expect(lines.map { $0["state"] } == [["cart": []], ["cart": ["hat"]], ["cart": ["hat", "shoes"]]])
        #expect(lines.allSatisfy { $0["user"] == "alice" && $0["time"]?.doubleValue != nil })
        #expect(lines[1]["ops"] == [["op": "add", "path": "/cart/-", "value": "hat"]])
        // From a rev on: its state first, then what came after.
        let later = await runTandem(["replay", "--url", base, "--token", harness.token(user: "alice"), "--speed", "0", "--from", "2"])
        #expect(later.console.stdout.count == 1)
        #expect(try JSONValue.parse(Array((later.console.stdout.first ?? "").utf8))["state"] == ["cart": ["hat", "shoes"]])
        await harness.shutdown()
    }

    @Test func aBackendTokenNeedsTheRoomNamed() async throws {
        let harness = try JoinHarness()
        _ = try await Self.record(harness)
        let base = "http://127.0.0.1:\(harness.server.port)"
        let backend = harness.server.tokens.mint(TokenClaims(sub: "backend", room: TokenClaims.anyRoom, role: .host,
                                                             exp: harness.server.tokens.currentTime + 600))
        let unnamed = await runTandem(["replay", "--url", base, "--token", backend])
        #expect(unnamed.status == ExitCode.usage)
        #expect(unnamed.console.stderr.joined().contains("--room"))
        let named = await runTandem(["replay", "--url", base, "--token", backend, "--room", "lobby", "--speed", "0"])
        #expect(named.status == ExitCode.success && named.console.stdout.count == 3)
        let missing = await runTandem(["replay", "--url", base, "--token", backend, "--room", "nowhere", "--speed", "0"])
        #expect(missing.status == ExitCode.failure && missing.console.stderr.first?.contains("there is no room 'nowhere'") == true)
        await harness.shutdown()
    }

    @Test func theRecordedGapsAreWaitedDividedByTheSpeed() async throws {
        // The server's clock commits the three patches 1 s and 0.5 s apart.
        let now = Mutex<Int64>(1_800_000_000_000)
        let harness = try JoinHarness(wallClock: { now.withLock { $0 } })
        let client = RoomsClient(baseURL: "http://127.0.0.1:\(harness.server.port)", token: harness.token(user: "alice"), group: harness.group)
        for (index, gap) in [(1, Int64(0)), (2, 1_000), (3, 500)] {
            now.withLock { $0 += gap }
            try await client.write("lobby", ops: [.set(JSONPointer(tokens: ["n"]), .number(Double(index)))])
        }
        let clock = RecordingClock()
        let options = ReplayCommand.Options(server: ServerURL(sync: "", api: client.baseURL), token: "", room: "lobby", from: 0, speed: 2, follow: false)
        var printed = 0
        try await ReplayCommand.replay(options, client: client, clock: clock) { _ in printed += 1 }
        #expect(printed == 3 && clock.sleeps == [.milliseconds(500), .milliseconds(250)], "\(clock.sleeps)")
        await harness.shutdown()
    }

    @Test func followGoesOnWithWhatHappensLiveUntilInterrupted() async throws {
        let harness = try JoinHarness()
        let client = try await Self.record(harness)
        let options = ReplayCommand.Options(server: ServerURL(sync: "", api: client.baseURL), token: "", room: "lobby", from: 0, speed: 0, follow: true)
        let lines = RecordingConsole()
        let follower = Task {
            try await ReplayCommand.replay(options, client: client) { lines.out($0) }
        }
        try await eventually("the recorded history is printed", timeout: .seconds(30)) { lines.stdout.count >= 3 }
        try await client.write("lobby", ops: try Self.ops(#"[{"op":"remove","path":"/cart/0"}]"#))
        try await eventually("the live patch is printed", timeout: .seconds(30)) { lines.stdout.count >= 4 }
        follower.cancel()
        _ = await follower.result
        let last = try JSONValue.parse(Array((lines.stdout.last ?? "").utf8))
        #expect(last["rev"] == 4 && last["state"] == ["cart": ["shoes"]])
        await harness.shutdown()
    }
}

/// A clock that records each requested sleep and returns at once.
final class RecordingClock: Clock, @unchecked Sendable {
    private let recorded = Mutex<[Duration]>([])
    private let origin = ContinuousClock.now

    var now: ContinuousClock.Instant { origin }
    var minimumResolution: Duration { .nanoseconds(1) }
    var sleeps: [Duration] { recorded.withLock { $0 } }

    func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
        recorded.withLock { $0.append(deadline - origin) }
    }
}
