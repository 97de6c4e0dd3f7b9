import Testing
import TandemProtocol
@testable import TandemClient

@Suite struct SyncEngineTests {
    typealias F = Fixtures

    @Test func localChangeIsVisibleAtOnceAndSentWithTheFirstSeq() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/tabIndex", 1)])
        #expect(engine.visible.root == ["tabIndex": 1])
        #expect(engine.confirmed.root == .emptyObject)
        #expect(engine.pending == [PendingPatch(seq: nil, ops: [F.set("/tabIndex", 1)], stage: .unsent)])
        let sent = engine.nextOutgoing(now: 0)
        #expect(sent == [.patch(seq: 1, ops: [F.set("/tabIndex", 1)], base: 0)])
        #expect(engine.pending.first?.stage == .inFlight)
        #expect(engine.nextOutgoing(now: 1).isEmpty, "an in-flight patch is not sent twice")
    }

    @Test func emptyChangeQueuesNothing() throws {
        var engine = F.connectedEngine()
        #expect(try engine.localChange([]) == false)
        #expect(engine.pending.isEmpty)
    }

    @Test func changeThatDoesNotApplyIsRefusedAndNothingQueued() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/tabIndex", 1)])
        #expect(throws: SyncEngineError.self) { try engine.localChange([F.set("/tabIndex/x", 2)]) }
        #expect(engine.pending.count == 1)
        #expect(engine.visible.root == ["tabIndex": 1])
    }

    @Test func viewerMayNotChangeTheState() {
        var engine = SyncEngine(clientID: "me")
        _ = engine.receive(F.welcome(role: .viewer))
        #expect(throws: SyncEngineError.readOnly(role: .viewer)) { try engine.localChange([F.set("/a", 1)]) }
        #expect(engine.pending.isEmpty)
    }

    @Test func ackMovesThePatchIntoConfirmed() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/tabIndex", 1)])
        _ = engine.nextOutgoing(now: 0)
        let events = engine.receive(.ack(seq: 1, rev: 1, duplicate: false))
        #expect(events == [.acknowledged(seq: 1, rev: 1)])
        #expect(engine.confirmed.root == ["tabIndex": 1])
        #expect(engine.visible == engine.confirmed)
        #expect(engine.rev == 1 && engine.pending.isEmpty)
        #expect(engine.resume == ResumePoint(epoch: "e1", rev: 1))
    }

    @Test func rejectRollsBackExactlyAndKeepsLaterChanges() throws {
        var engine = F.connectedEngine()
        _ = engine.receive(F.event(rev: 1, [F.set("/marks", ["a": true]), F.set("/tabIndex", 0)]))
        let before = engine.visible
        try engine.localChange([F.set("/marks/a", false), F.set("/tabIndex", 3)])
        _ = engine.nextOutgoing(now: 0)
        try engine.localChange([F.set("/addToCartSelected", true)])
        let events = engine.receive(.reject(seq: 1, code: .forbidden, message: "no"))
        #expect(events == [
            .rejected(seq: 1, code: .forbidden, message: "no", ops: [F.set("/marks/a", false), F.set("/tabIndex", 3)]),
            .visibleChanged,
        ])
        var expected = before
        try expected.apply([F.set("/addToCartSelected", true)])
        #expect(engine.visible == expected)
        #expect(engine.pending.count == 1)
    }

    @Test func rebaseKeepsLocalIntentOverAnOlderRemoteValue() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/tabIndex", 2)])
        _ = engine.nextOutgoing(now: 0)
        let events = engine.receive(F.event(rev: 1, [F.set("/tabIndex", 1), F.set("/addToCartSelected", true)]))
        #expect(engine.confirmed.root == ["tabIndex": 1, "addToCartSelected": true])
        #expect(engine.visible.root == ["tabIndex": 2, "addToCartSelected": true])
        #expect(events.contains(.visibleChanged))
    }

    @Test func pendingPatchThatNoLongerAppliesLeavesVisibleButIsStillSent() throws {
        var engine = F.connectedEngine()
        _ = engine.receive(F.event(rev: 1, [F.set("/list", [0, 1, 2])]))
        try engine.localChange([F.set("/list/2", "mine")])
        _ = engine.receive(F.event(rev: 2, [F.set("/list", [0])]))
        #expect(engine.visible.root == ["list": [0]])
        #expect(engine.nextOutgoing(now: 0) == [.patch(seq: 1, ops: [F.set("/list/2", "mine")], base: 2)])
    }

    @Test func ownPatchEventIsTheAckOfThatSeq() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/tabIndex", 1)])
        _ = engine.nextOutgoing(now: 0)
        let events = engine.receive(F.event(rev: 1, client: "me", seq: 1, [F.set("/tabIndex", 1)]))
        #expect(events == [.acknowledged(seq: 1, rev: 1)])
        #expect(engine.pending.isEmpty && engine.confirmed.root == ["tabIndex": 1])
        #expect(engine.receive(.ack(seq: 1, rev: 1, duplicate: true)).isEmpty, "a later duplicate ack is ignored")
    }

    @Test("another user's patch under the same client id and seq is a remote change, not the ack of this engine's pending patch")
    func anotherUsersPatchWithTheSameClientIDIsNotAnAck() throws {
        var engine = F.connectedEngine()
        #expect(engine.user == "u-me")
        try engine.localChange([F.set("/tabIndex", 1)])
        _ = engine.nextOutgoing(now: 0)
        let theirs = PatchEvent(rev: 1, user: "mallory", client: "me", seq: 1, ops: [F.set("/marks", ["x": true])])
        #expect(engine.receive(.patch(theirs)) == [.remoteChange(theirs), .visibleChanged])
        #expect(engine.pending.count == 1, "still waiting for its own ack")
        #expect(engine.visible.root == ["tabIndex": 1, "marks": ["x": true]])
        #expect(engine.receive(.ack(seq: 1, rev: 2, duplicate: false)) == [.acknowledged(seq: 1, rev: 2)])
        #expect(engine.confirmed.root == ["tabIndex": 1, "marks": ["x": true]])
    }

    @Test func duplicateAckDoesNotApplyTwice() throws {
        var engine = F.connectedEngine()
        _ = engine.receive(F.event(rev: 1, [F.set("/n", 1)]))
        try engine.localChange([F.set("/n", 2)])
        _ = engine.nextOutgoing(now: 0)
        // The server had applied seq 1 at rev 1 already (our own change, sent before), say.
        _ = engine.receive(.ack(seq: 1, rev: 1, duplicate: true))
        #expect(engine.rev == 1 && engine.confirmed.root == ["n": 1] && engine.pending.isEmpty)
    }

    @Test func connectionLostMovesInFlightBackAndWelcomeResendsTheRestInOrder() throws {
        var engine = F.connectedEngine(configuration: SyncEngineConfiguration(maxInFlight: 8))
        for value in 1...3 { try engine.localChange([F.set("/v\(value)", .number(Double(value)))]) }
        #expect(F.seqs(engine.nextOutgoing(now: 0)) == [1, 2, 3])
        engine.connectionLost()
        #expect(engine.pending.allSatisfy { $0.stage == .unsent })
        try engine.localChange([F.set("/v4", 4)])
        #expect(engine.nextOutgoing(now: 1).isEmpty, "nothing is sent while disconnected")
        #expect(engine.resume == ResumePoint(epoch: "e1", rev: 0))
        // Seq 1 was applied before the drop (rev 1, in the replay); 2 and 3 were not.
        let replay = [PatchEvent(rev: 1, user: "u-me", client: "me", seq: 1, ops: [F.set("/v1", 1)])]
        let events = engine.receive(F.welcome(rev: 1, state: nil, replay: replay, lastSeq: 1, limits: SessionLimits(rate: 0)))
        #expect(events.first == .synchronized(epoch: "e1", rev: 1, snapshot: false))
        #expect(F.seqs(engine.nextOutgoing(now: 2)) == [2, 3, 4])
        #expect(engine.nextSeq == 5)
    }

    @Test func settledSeqMissingFromTheReplayIsReportedAsNotApplied() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/a", 1)])
        try engine.localChange([F.set("/b", 2)])
        _ = engine.nextOutgoing(now: 0)
        engine.connectionLost()
        // Seq 1 was refused, seq 2 applied at rev 1; the reject was lost with the connection.
        let replay = [PatchEvent(rev: 1, user: "u-me", client: "me", seq: 2, ops: [F.set("/b", 2)])]
        let events = engine.receive(F.welcome(rev: 1, state: nil, replay: replay, lastSeq: 2))
        #expect(events.contains(.rejected(seq: 1, code: .other("not_applied"),
                                          message: "the server did not apply this change (its reject was lost with the connection)",
                                          ops: [F.set("/a", 1)])))
        #expect(engine.visible.root == ["b": 2] && engine.pending.isEmpty)
    }

    @Test func snapshotWelcomeDropsAppliedSeqsAndRaisesNextSeq() throws {
        var engine = SyncEngine(clientID: "me")
        try engine.localChange([F.set("/a", 1)]) // made before any connection
        _ = engine.receive(F.welcome(epoch: "e2", rev: 7, state: ["z": 1], lastSeq: 41))
        #expect(engine.visible.root == ["z": 1, "a": 1])
        #expect(F.seqs(engine.nextOutgoing(now: 0)) == [42], "a restarted client continues above the server's lastSeq")
    }

    @Test func gapInTheHistoryAsksForASnapshot() {
        var engine = F.connectedEngine()
        let events = engine.receive(F.event(rev: 2, [F.set("/a", 1)]))
        #expect(events.contains { if case .resyncNeeded = $0 { true } else { false } })
        #expect(engine.resume == nil)
        _ = engine.receive(F.welcome(rev: 2, state: ["a": 1]))
        #expect(engine.resume == ResumePoint(epoch: "e1", rev: 2))
    }

    @Test func eventAlreadyConfirmedIsIgnored() {
        var engine = F.connectedEngine()
        _ = engine.receive(F.event(rev: 1, [F.set("/a", 1)]))
        #expect(engine.receive(F.event(rev: 1, [F.set("/a", 1)])).isEmpty)
        #expect(engine.rev == 1)
    }

    @Test func atMostMaxInFlightUnansweredPatches() throws {
        var engine = F.connectedEngine(configuration: SyncEngineConfiguration(maxInFlight: 2))
        for value in 1...5 { try engine.localChange([F.set("/v\(value)", 1)]) }
        #expect(F.seqs(engine.nextOutgoing(now: 0)) == [1, 2])
        #expect(engine.nextSendTime(now: 0) == nil, "only an answer can unblock the outbox")
        _ = engine.receive(.ack(seq: 1, rev: 1, duplicate: false))
        #expect(F.seqs(engine.nextOutgoing(now: 1)) == [3])
        #expect(engine.inFlightCount == 2)
    }

    @Test func newEpochReplacesTheStateAndResendsUnappliedPatches() throws {
        var engine = F.connectedEngine()
        _ = engine.receive(F.event(rev: 1, [F.set("/old", true)]))
        try engine.localChange([F.set("/mine", 1)])
        #expect(F.seqs(engine.nextOutgoing(now: 0)) == [1])
        engine.connectionLost()
        // The room was created anew: another epoch, rev 0, and no record of this client.
        let events = engine.receive(F.welcome(epoch: "e2", rev: 0, state: .emptyObject, lastSeq: 0, limits: SessionLimits(rate: 0)))
        #expect(events.first == .synchronized(epoch: "e2", rev: 0, snapshot: true))
        #expect(engine.confirmed.root == .emptyObject && engine.visible.root == ["mine": 1])
        #expect(engine.nextOutgoing(now: 1) == [.patch(seq: 1, ops: [F.set("/mine", 1)], base: 0)])
        #expect(engine.resume == ResumePoint(epoch: "e2", rev: 0))
    }

    @Test func messagesOutsideTheDocumentChangeNothing() {
        var engine = F.connectedEngine()
        let peer = Peer(user: "u", client: "c")
        for message: ServerMessage in [.pong(t: 1), .leave(peer), .presence(peer, data: .emptyObject),
                                       .signal(from: peer, event: "tap", data: .null), .error(code: .badJSON, message: "x")] {
            #expect(engine.receive(message).isEmpty)
        }
        #expect(engine.rev == 0 && engine.visible.root == .emptyObject)
    }
}

/// A room that forgot this client (`welcome.forgotten`): with a snapshot, patches sent before cannot be told
/// applied or not and are dropped; with a replay, the replay tells, and nothing is dropped.
@Suite struct SyncEngineForgottenProgressTests {
    typealias F = Fixtures

    private func engineWithOneSentAndOneUnsent() throws -> SyncEngine {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/sent", 1)])
        _ = engine.nextOutgoing(now: 0)
        engine.connectionLost()
        try engine.localChange([F.set("/offline", 2)])
        return engine
    }

    private func welcome(_ sync: Welcome.Sync, forgotten: Bool) -> ServerMessage {
        .welcome(Welcome(epoch: "e1", rev: 0, sync: sync, lastSeq: 0, forgotten: forgotten,
                         you: SessionIdentity(user: "u-me", client: "me", role: .host), participants: [], limits: SessionLimits(rate: 0)))
    }

    @Test func aSnapshotOfARoomThatForgotThisClientDropsWhatWasSentBefore() throws {
        var engine = try engineWithOneSentAndOneUnsent()
        let events = engine.receive(welcome(.state(["other": true]), forgotten: true))
        let dropped = events.compactMap { if case .rejected(let seq, let code, _, let ops) = $0 { (seq, code, ops) } else { nil } }
        #expect(dropped.count == 1)
        #expect(dropped.first?.0 == 1 && dropped.first?.1 == .progressExpired && dropped.first?.2 == [F.set("/sent", 1)])
        #expect(engine.pending.map(\.ops) == [[F.set("/offline", 2)]], "a change never sent is sent once")
        #expect(engine.visible.root == ["other": true, "offline": 2])
        #expect(F.seqs(engine.nextOutgoing(now: 1)) == [2], "seqs keep increasing")
    }

    @Test func aReplayTellsWhichWereAppliedSoNothingIsDropped() throws {
        var engine = try engineWithOneSentAndOneUnsent()
        let events = engine.receive(welcome(.replay([]), forgotten: true))
        #expect(!events.contains { if case .rejected = $0 { true } else { false } })
        #expect(engine.pending.count == 2)
        #expect(F.seqs(engine.nextOutgoing(now: 1)) == [1, 2], "the patch the replay does not show was not applied: resent")
    }

    @Test func withoutTheFlagASnapshotResendsAsBefore() throws {
        var engine = try engineWithOneSentAndOneUnsent()
        _ = engine.receive(welcome(.state(.emptyObject), forgotten: false))
        #expect(F.seqs(engine.nextOutgoing(now: 1)) == [1, 2])
    }
}
