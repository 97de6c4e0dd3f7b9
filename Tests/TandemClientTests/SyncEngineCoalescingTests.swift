import Testing
import TandemKit
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

    @Test func anOpTheNewChangeNeedsBeforeItsSupersedingOpIsKept() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/a", "text")])
        _ = engine.nextOutgoing(now: 0)
        try engine.localChange([F.set("/a", .emptyObject)])
        // `/a/k` relies on the object the previous change made; the later `set /a` supersedes that change
        // only after `/a/k` has used it.
        try engine.localChange([F.set("/a/k", 1), F.set("/a", ["k": 2])])
        #expect(engine.pending.map(\.ops) == [[F.set("/a", "text")], [F.set("/a", .emptyObject)], [F.set("/a/k", 1), F.set("/a", ["k": 2])]])
        var replay = engine.confirmed
        for patch in engine.pending { try replay.apply(patch.ops) }
        #expect(replay == engine.visible)
    }

    @Test func anOpALaterOpOfItsOwnPatchNeedsIsKept() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/a", 1)])
        _ = engine.nextOutgoing(now: 0)
        // Within one patch: the remove makes room for the object the set below creates.
        try engine.localChange([F.remove("/a"), F.set("/a/b", true)])
        try engine.localChange([F.remove("/a")])
        var replay = engine.confirmed
        for patch in engine.pending { try replay.apply(patch.ops) }
        #expect(replay == engine.visible)
        #expect(engine.visible.root == .emptyObject)
    }

    /// Random local changes over a few overlapping paths, acknowledged at random moments: after every step the
    /// confirmed state with the pending patches on top, applied in order as the server will, is the visible state.
    @Test(arguments: 0..<8)
    func theOutboxAlwaysReplaysToTheVisibleState(batch: Int) async throws {
        for seed in 0..<40 {
            await Task.yield()
            var random = SeededRandom(seed: UInt64(batch * 40 + seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
            var engine = F.connectedEngine()
            var server = Document()
            var serverRev: Int64 = 0
            var unanswered: [(seq: Int64, rev: Int64)] = []
            for step in 0..<60 {
                let ops = Self.change(fitting: engine.visible, using: &random)
                guard !ops.isEmpty else { continue }
                try engine.localChange(ops)
                // The outbox is sent now and then, so unsent patches pile up and get merged.
                for case .patch(let seq, let sent, _) in random.next() % 4 == 0 ? engine.nextOutgoing(now: Int64(step)) : [] {
                    // What the server does with the patch: it must apply where the visible state said it would.
                    try server.apply(sent, limits: .unlimited)
                    serverRev += 1
                    unanswered.append((seq, serverRev))
                }
                while !unanswered.isEmpty, random.next() % 3 != 0 {
                    let answer = unanswered.removeFirst()
                    _ = engine.receive(.ack(seq: answer.seq, rev: answer.rev, duplicate: false))
                }
                var replay = engine.confirmed
                for patch in engine.pending { try replay.apply(patch.ops, limits: .unlimited) }
                #expect(replay == engine.visible, "seed \(batch * 40 + seed), step \(step)")
                if replay != engine.visible { return }
            }
            // Every change acknowledged: the server holds what the app saw.
            for answer in unanswered { _ = engine.receive(.ack(seq: answer.seq, rev: answer.rev, duplicate: false)) }
            while !engine.pending.isEmpty {
                for case .patch(let seq, let sent, _) in engine.nextOutgoing(now: 1_000) {
                    try server.apply(sent, limits: .unlimited)
                    serverRev += 1
                    _ = engine.receive(.ack(seq: seq, rev: serverRev, duplicate: false))
                }
            }
            #expect(server == engine.visible && server == engine.confirmed)
        }
    }

    /// Up to four ops over three keys and two levels that apply to `document` one after the other.
    private static func change(fitting document: Document, using random: inout SeededRandom) -> [PatchOp] {
        let keys = ["a", "b", "c"]
        var trial = document
        var ops: [PatchOp] = []
        for _ in 0..<(Int(random.next() % 4) + 1) {
            var tokens = [keys[Int(random.next() % 3)]]
            if random.next() % 2 == 0 { tokens.append(keys[Int(random.next() % 3)]) }
            let path = JSONPointer(tokens: tokens)
            let values: [JSONValue] = [1, "s", .emptyObject, .array([]), ["a": 1], .null]
            let op: PatchOp = random.next() % 4 == 0 ? .remove(path) : .set(path, values[Int(random.next() % UInt64(values.count))])
            guard let next = try? trial.applying([op]) else { continue }
            trial = next
            ops.append(op)
        }
        return ops
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

    @Test func anInsertOrRemovalBesideAnElementKeepsTheOpsOnItsIndex() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/list", [1, 2, 3])])
        _ = engine.nextOutgoing(now: 0)
        // After the insert, `/list/2` is another element: the first set is not decided by the last.
        try engine.localChange([F.set("/list/2", 30)])
        try engine.localChange([.add(F.path("/list/0"), 0)])
        try engine.localChange([F.set("/list/2", 20)])
        try engine.localChange([F.remove("/list/0")])
        try engine.localChange([.replace(F.path("/list/0"), 10)])
        #expect(engine.pending.count == 6, "\(engine.pending.map(\.ops))")
        var replay = engine.confirmed
        for patch in engine.pending { try replay.apply(patch.ops) }
        #expect(replay == engine.visible)
        #expect(engine.visible.root == ["list": [10, 20, 30]])
        // A set of the whole list decides every unsent op inside it.
        try engine.localChange([F.set("/list", [9])])
        #expect(engine.pending.map(\.ops) == [[F.set("/list", [1, 2, 3])], [F.set("/list", [9])]])
    }

    @Test func aTestIsNeverDroppedAndMovesKeepWhatTheyRead() throws {
        var engine = F.connectedEngine()
        try engine.localChange([F.set("/a", 1), F.set("/price", 249)])
        _ = engine.nextOutgoing(now: 0)
        try engine.localChange([.test(F.path("/price"), 249), F.set("/a", 2)])
        try engine.localChange([F.set("/price", 199)])
        #expect(engine.pending.map(\.ops).contains([.test(F.path("/price"), 249), F.set("/a", 2)]))
        // `/b` is moved away before `/b` is set again: the first set of `/b` still matters.
        try engine.localChange([F.set("/b", "moved")])
        try engine.localChange([.move(from: F.path("/b"), to: F.path("/c")), F.set("/b", "new")])
        #expect(engine.pending.map(\.ops).contains([F.set("/b", "moved")]))
        #expect(engine.visible.root == ["a": 2, "price": 199, "b": "new", "c": "moved"])
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

    @Test("a path the app declares high-rate is paced like /contentOffset; undeclared, every change is its own patch")
    func aDeclaredHighRatePathIsPacedWhateverItIsCalled() throws {
        func sends(declaring: Bool) throws -> Int {
            var engine = F.connectedEngine()
            if declaring { engine.declareHighRate(JSONPointer(tokens: ["scrollOffset"])) }
            var count = 0
            var now: Int64 = 0
            for step in 0..<300 {
                try engine.localChange([F.set("/scrollOffset", ["x": 0, "y": .number(Double(step))])])
                count += engine.nextOutgoing(now: now).count
                if let seq = engine.pending.first(where: { $0.stage == .inFlight })?.seq {
                    _ = engine.receive(.ack(seq: seq, rev: engine.rev + 1, duplicate: false))
                }
                now += 4_000_000
            }
            return count
        }
        #expect(try sends(declaring: false) == 300)
        #expect(try sends(declaring: true) <= 38, "1.2 s at ≤ 30 Hz")
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
        #expect(sent == [.patch(seq: 1, ops: [F.set("/contentOffset/y", 0)], base: 0), .patch(seq: 2, ops: [F.set("/contentOffset/y", 200)], base: 1)])
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
