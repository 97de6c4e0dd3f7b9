import Testing
import TandemProtocol
import TandemTestSupport
@testable import TandemServer

/// What a room shows while a patch is applied in memory but its commit has not finished: nothing that
/// depends on it, and afterwards everything in the order it was decided.
@Suite struct ReleaseOrderTests {
    static func set(_ key: String, _ value: Double) -> [PatchOp] {
        [.set(try! JSONPointer(parsing: "/\(key)"), .number(value))]
    }

    /// A room whose first patch (alice's seq 1, `/a` = 1) is applied and held in its commit.
    static func aliceWhosePatchIsCommitting() async throws -> (HeldCommitStore, ServerHarness, ServerSession, RecordingSink) {
        let store = HeldCommitStore()
        let server = ServerHarness(store: store)
        let (alice, aliceSink, _) = await server.join(user: "alice", client: "a1")
        alice.send(.patch(seq: 1, ops: Self.set("a", 1)))
        try await eventually("the commit has begun", timeout: .seconds(30)) { store.commitStarted.load(ordering: .acquiring) }
        return (store, server, alice, aliceSink)
    }

    @Test func aRejectDecidedWhileAnEarlierPatchCommitsArrivesAfterThatPatchsAck() async throws {
        let (store, server, alice, aliceSink) = try await Self.aliceWhosePatchIsCommitting()
        // Not applicable: "/a" is a number (seq 1 made it one).
        alice.send(.patch(seq: 2, ops: [.set(try JSONPointer(parsing: "/a/inside"), .number(1))]))
        #expect(await aliceSink.staysQuiet(), "the reject waits for the ack of seq 1")
        store.release.signal()
        #expect(await aliceSink.nextMessage() == .ack(seq: 1, rev: 1, duplicate: false))
        let next = await aliceSink.nextMessage()
        guard case .reject(let seq, _, _)? = next else { Issue.record("no reject: \(String(describing: next))"); return }
        #expect(seq == 2)
        withExtendedLifetime(server) {}
    }

    @Test func aWelcomeWaitsForThePatchesItContainsToBeDurable() async throws {
        let (store, server, alice, aliceSink) = try await Self.aliceWhosePatchIsCommitting()
        let (bob, bobSink) = server.connect()
        bob.send(.hello(Hello(token: server.token(user: "bob"), client: "b1")))
        #expect(await bobSink.staysQuiet(), "no welcome shows a state that is not durable yet")
        store.release.signal()
        guard case .welcome(let welcome)? = await bobSink.nextMessage() else { Issue.record("no welcome"); return }
        #expect(welcome.rev == 1)
        guard case .state(let state) = welcome.sync else { Issue.record("expected a snapshot"); return }
        #expect(state == .object(["a": .number(1)]))
        #expect(await aliceSink.nextMessage() == .ack(seq: 1, rev: 1, duplicate: false))
        // Bob does not get rev 1 again as a patch event: his welcome held it.
        alice.send(.patch(seq: 2, ops: Self.set("b", 2)))
        guard case .patch(let event)? = await bobSink.nextMessage(ofType: "patch") else { Issue.record("no patch"); return }
        #expect(event.rev == 2)
    }

    @Test func theGateLetsAnItemGoAtOnceOnlyWhenItsRevIsReleasedAndNothingWaits() {
        var gate = ReleaseGate<String>(releasedRev: 3)
        #expect(gate.admit("now", decidedAt: 3) == "now")
        #expect(gate.admit("after 4", decidedAt: 4) == nil)
        #expect(gate.admit("behind", decidedAt: 3) == nil, "an item never overtakes one decided before it")
        #expect(gate.admit("after 5", decidedAt: 5) == nil)
        #expect(gate.release(through: 4) == ["after 4", "behind"])
        #expect(gate.heldCount == 1)
        #expect(gate.release(through: 5) == ["after 5"])
        #expect(gate.releasedRev == 5 && gate.heldCount == 0)
        #expect(gate.admit("later", decidedAt: 5) == "later")
    }
}
