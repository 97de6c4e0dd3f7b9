import Testing
import TandemProtocol
@testable import TandemClient

@Suite struct SyncEngineCoalescingTests {
    typealias F = Fixtures

    @Test func unsentValueOfTheSamePathIsReplacedByTheNewest() throws {
        var engine = F.connectedEngine()
        for value in 1...5 { try engine.localChange([F.set("/tabIndex", .number(Double(value)))]) }
        #expect(engine.pending == [PendingPatch(seq: nil, ops: [F.set("/tabIndex", 5)], stage: .unsent)])
        #expect(engine.visible.root == ["tabIndex": 5])
    }

    @Test func setAboveSupersedesSetsBelow() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/marks/a", true), F.set("/tabIndex", 1)])
        try engine.localChange([F.set("/marks", ["b": true])])
        #expect(engine.pending.map(\.ops) == [[F.set("/tabIndex", 1)], [F.set("/marks", ["b": true])]])
    }

    @Test func inFlightPatchIsNeverMerged() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/tabIndex", 1)])
        _ = engine.nextOutgoing(now: 0)
        try engine.localChange([F.set("/tabIndex", 2)])
        #expect(engine.pending.map(\.ops) == [[F.set("/tabIndex", 1)], [F.set("/tabIndex", 2)]])
        #expect(engine.pending.map(\.seq) == [1, nil])
    }

    @Test func removeDoesNotSupersedeASetThatCreatesParents() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/x/y", 1)])
        try engine.localChange([F.remove("/x/y")])
        // Dropping the set would lose the parent object "/x" the set created.
        #expect(engine.pending.count == 2)
        #expect(engine.visible.root == ["x": .emptyObject])
    }

    @Test func chainOfSupersededPatchesCollapsesToTheNewest() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/list", [0, 0, 0])])
        try engine.localChange([F.set("/list/2", 5)])
        try engine.localChange([F.set("/list", [1])])
        #expect(engine.pending.map(\.ops) == [[F.set("/list", [1])]])
        #expect(engine.visible.root == ["list": [1]])
    }

    @Test func removeInBetweenIsSupersededByTheNewerSet() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/a/b", 1)])
        try engine.localChange([F.remove("/a/b")])
        #expect(engine.pending.count == 2)
        try engine.localChange([F.set("/a/b", 2)])
        #expect(engine.pending.map(\.ops) == [[F.set("/a/b", 2)]])
    }

    @Test func opOverlappingAKeptPatchInBetweenIsKept() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/a/b/c", 1)])
        try engine.localChange([F.remove("/a")])
        try engine.localChange([F.set("/a/b", 2)])
        // The remove in between is not superseded and touches "/a": the first set stays (merging is
        // conservative), so the remove is applied to the state it was made on.
        #expect(engine.pending.count == 3)
        #expect(engine.visible.root == ["a": ["b": 2]])
    }

    @Test func atMostOneUnsentValuePerHighRatePath() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/contentOffset", ["x": 0, "y": 1])])
        _ = engine.nextOutgoing(now: 0)
        try engine.localChange([F.set("/contentOffset/x", 3)])
        try engine.localChange([F.set("/tabIndex", 1)])
        try engine.localChange([F.set("/contentOffset/y", 4)])
        try engine.localChange([F.set("/contentOffset/y", 5)])
        let unsentOffsets = engine.pending.filter { $0.stage == .unsent && engine.highRatePath(of: $0.ops) != nil }
        #expect(unsentOffsets.map(\.ops) == [[F.set("/contentOffset/x", 3), F.set("/contentOffset/y", 5)]])
        #expect(engine.visible.root == ["contentOffset": ["x": 3, "y": 5], "tabIndex": 1])
    }

    @Test func highRatePathIsSentAtMostEvery33Milliseconds() throws {
        var engine = F.connectedEngine()
        var sendTimes: [Int64] = []
        var now: Int64 = 0
        // A scroll at 1 kHz for a second.
        for step in 0..<1000 {
            try engine.localChange([F.set("/contentOffset", ["x": 0, "y": .number(Double(step))])])
            if !engine.nextOutgoing(now: now).isEmpty { sendTimes.append(now) }
            if let seq = engine.pending.first(where: { $0.stage == .inFlight })?.seq {
                _ = engine.receive(.ack(seq: seq, rev: engine.rev + 1, duplicate: false))
            }
            now += 1_000_000
        }
        #expect(zip(sendTimes, sendTimes.dropFirst()).allSatisfy { $1 - $0 >= 33_000_000 })
        #expect(sendTimes.count >= 29 && sendTimes.count <= 31)
    }

    @Test func slowLinkEndsWithTheNewestOffsetNotABacklog() throws {
        var engine = F.connectedEngine(configuration: SyncEngineConfiguration(maxInFlight: 1))
        var sent: [ClientMessage] = []
        sent += engine.nextOutgoing(now: 0)
        try engine.localChange([F.set("/contentOffset/y", 0)])
        sent += engine.nextOutgoing(now: 0)
        // The link is stalled: 200 more offsets arrive before the first ack.
        for y in 1...200 { try engine.localChange([F.set("/contentOffset/y", .number(Double(y)))]) }
        #expect(engine.pending.count == 2)
        _ = engine.receive(.ack(seq: 1, rev: 1, duplicate: false))
        sent += engine.nextOutgoing(now: 100_000_000)
        #expect(sent == [.patch(seq: 1, ops: [F.set("/contentOffset/y", 0)]), .patch(seq: 2, ops: [F.set("/contentOffset/y", 200)])])
    }

    @Test func otherPathsAreNotThrottled() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/tabIndex", 1)])
        _ = engine.nextOutgoing(now: 0)
        try engine.localChange([F.set("/tabIndex", 2)])
        #expect(F.seqs(engine.nextOutgoing(now: 1)) == [2])
    }

    @Test func nextSendTimeReportsTheThrottleDeadline() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/contentOffset/y", 1)])
        _ = engine.nextOutgoing(now: 1_000)
        try engine.localChange([F.set("/contentOffset/y", 2)])
        #expect(engine.nextOutgoing(now: 2_000).isEmpty)
        let due = engine.nextSendTime(now: 2_000)
        #expect(due == Int64(33_001_000))
        #expect(F.seqs(engine.nextOutgoing(now: 1_000 + 33_000_000)) == [2])
    }
}
