import Testing
import TandemProtocol
@testable import TandemCluster
import TandemRedis
import TandemTestSupport
import TandemTesting

/// The server's document model as a cluster replica.
struct DocumentReplica: ClusterReplica {
    struct Unreadable: Error {}

    var document: Document

    init(snapshot: RoomSnapshot?) throws {
        guard let snapshot else {
            document = Document()
            return
        }
        guard let document = Document(try JSONValue.parse(snapshot.state)) else { throw Unreadable() }
        self.document = document
    }

    mutating func fold(_ patch: SequencedPatch) throws {
        try document.apply(try PatchOp.list(from: try JSONValue.parse(patch.ops)))
    }

    var state: [UInt8] { document.root.serializedBytes() }

    func rejection(of ops: [UInt8]) -> String? {
        var trial = document
        do {
            try trial.apply(try PatchOp.list(from: try JSONValue.parse(ops)))
            return nil
        } catch {
            return "\(error)"
        }
    }
}

@Suite("Cluster engine: several nodes on one Redis", .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct ClusterRoomSyncTests {
    /// A node: its engine (shared client + dedicated follower client) and its follow loop, started at
    /// once or when `start` is fulfilled.
    struct Node {
        let sync: ClusterRoomSync<DocumentReplica>
        let loop: Task<Void, Never>

        init(context: RedisTestContext, snapshotInterval: Int64 = 1_000, coalescesRooms: Bool = true, commitInterval: Duration = .zero,
             clock: any Clock<Duration> = ContinuousClock(), start: Task<Void, Never>? = nil) {
            sync = ClusterRoomSync(sequencer: RedisRoomSequencer(client: context.client(), coalescesRooms: coalescesRooms,
                                                                 commitInterval: commitInterval, clock: clock),
                                   follower: RoomLogFollower(sequencer: RedisRoomSequencer(client: context.client()), blockTimeout: .milliseconds(20)),
                                   snapshotInterval: snapshotInterval)
            let sync = sync
            loop = Task {
                await start?.value
                await sync.run()
            }
        }
    }

    /// A node with the server's replica type whose follow loop waits for `startFollowing()`: what it
    /// appends meanwhile is checked against its speculative head, and its replies come before its folds.
    struct HeldNode {
        let sync: ClusterRoomSync<ClusterDocumentReplica>
        let loop: Task<Void, Never>
        private let release: AsyncStream<Void>.Continuation

        init(context: RedisTestContext) {
            let (gate, release) = AsyncStream<Void>.makeStream()
            let sync = ClusterRoomSync<ClusterDocumentReplica>(sequencer: RedisRoomSequencer(client: context.client(), coalescesRooms: true),
                                                               follower: RoomLogFollower(sequencer: RedisRoomSequencer(client: context.client()), blockTimeout: .milliseconds(20)))
            self.sync = sync
            self.release = release
            loop = Task {
                for await _ in gate { break }
                await sync.run()
            }
        }

        func startFollowing() { release.yield() }
    }

    static func set(_ path: String, _ value: Int64) -> [UInt8] {
        Array(#"[{"op":"set","path":"\#(path)","value":\#(value)}]"#.utf8)
    }

    @Test("three nodes, concurrent writers on each: contiguous revs, every patch once, identical documents everywhere")
    func threeNodesConverge() async throws {
        try await RedisTestContext.with { context in
            let nodes = (0..<3).map { _ in Node(context: context, snapshotInterval: 50) }
            let folded = (0..<3).map { _ in Mailbox<Int64>() }
            for (node, log) in zip(nodes, folded) {
                try await node.sync.open(room: "r") { event in
                    if case .folded(let patch, _) = event { log.push(patch.rev) }
                }
            }
            let outcomes = try await withThrowingTaskGroup(of: [ClusterSubmitOutcome].self) { tasks in
                for (index, node) in nodes.enumerated() {
                    for writer in 0..<2 {
                        tasks.addTask {
                            var outcomes: [ClusterSubmitOutcome] = []
                            for seq in Int64(1)...25 {
                                outcomes.append(try await node.sync.submit(room: "r", client: "n\(index)w\(writer)", user: "u", seq: seq,
                                                                           ops: Self.set("/n\(index)w\(writer)", seq)))
                            }
                            return outcomes
                        }
                    }
                }
                return try await tasks.reduce(into: []) { $0 += $1 }
            }
            let revs = outcomes.compactMap { if case .applied(let rev) = $0 { rev } else { nil } }
            #expect(revs.sorted() == Array(1...150))
            var documents: [Document] = []
            for node in nodes {
                try await Self.waitUntil("a node folds every rev") { await node.sync.state(of: "r")?.rev == 150 }
                documents.append(try #require(await node.sync.state(of: "r")).replica.document)
            }
            #expect(Set(documents).count == 1)
            // Every node reported every rev, in order: what it fans out to its own connections.
            for log in folded { #expect(log.all == Array(1...150)) }
            #expect(documents.first?.root == JSONValue.object(Dictionary(uniqueKeysWithValues: (0..<3).flatMap { index in
                (0..<2).map { ("n\(index)w\($0)", JSONValue.number(25)) }
            })))
            // Snapshots were stored along the way; a fourth node loads from the latest one plus the log.
            let late = Node(context: context)
            let head = try await late.sync.open(room: "r")
            #expect(head.rev == 150)
            #expect(await late.sync.state(of: "r")?.replica.document == documents.first)
            try await Self.waitUntil("the snapshot of rev 150 is stored") { (try? await nodes[0].sync.sequencer.snapshot(room: "r")?.rev) == 150 }
            for node in nodes + [late] { node.loop.cancel() }
        }
    }

    @Test("a node stores its snapshot at the end of the batch that reached a multiple of the interval: a log entry ends there")
    func snapshotsAtBatchEnds() async throws {
        try await RedisTestContext.with { context in
            let node = Node(context: context, snapshotInterval: 4)
            try await node.sync.open(room: "r")
            let writer = RedisRoomSequencer(client: context.client())
            _ = try await writer.append(room: "r", (1...6).map { SequencerEntry(client: "w", user: "u", seq: $0, ops: Self.set("/n", $0)) }, baseRev: nil)
            try await Self.waitUntil("the node folds the batch") { await node.sync.state(of: "r")?.rev == 6 }
            try await Self.waitUntil("a snapshot is stored") { (try? await writer.snapshot(room: "r")) != nil }
            #expect(try await writer.snapshot(room: "r")?.rev == 6, "rev 4 is inside the batch's entry")
            node.loop.cancel()
        }
    }

    @Test("a patch invalid against the document is rejected without a rev; a resent seq is a duplicate even if it no longer validates")
    func rejectionsAndDuplicates() async throws {
        try await RedisTestContext.with { context in
            let node = Node(context: context)
            try await node.sync.open(room: "r")
            #expect(try await node.sync.submit(room: "r", client: "c", user: "u", seq: 1, ops: Self.set("/a", 1)) == .applied(rev: 1))
            // /a is a number: nothing can be set beneath it.
            guard case .rejected = try await node.sync.submit(room: "r", client: "c", user: "u", seq: 2, ops: Self.set("/a/b", 2)) else {
                Issue.record("setting beneath a number must be rejected"); return
            }
            #expect(try await node.sync.submit(room: "r", client: "c", user: "u", seq: 2, ops: Self.set("/b", 2)) == .applied(rev: 2))
            #expect(try await node.sync.submit(room: "r", client: "c", user: "u", seq: 2, ops: Self.set("/a/b", 2)) == .duplicate(rev: 2))
            await #expect(throws: ClusterError.roomNotOpen("other")) { try await node.sync.submit(room: "other", client: "c", user: "u", seq: 1, ops: Self.set("/a", 1)) }
            node.loop.cancel()
        }
    }

    @Test("a node behind the room catches up and re-validates before appending: valid when checked, invalid at the current rev → rejected")
    func compareAndAppendRevalidates() async throws {
        try await RedisTestContext.with { context in
            let (gate, open) = AsyncStream<Void>.makeStream()
            let start = Task { for await _ in gate { return } }
            let node = Node(context: context, start: start)
            try await node.sync.open(room: "r")
            // Another node sets /a to a number; this node has not folded it (its follow loop is held).
            let other = RedisRoomSequencer(client: context.client())
            #expect(try await other.append(room: "r", client: "x", user: "u", seq: 1, ops: Self.set("/a", 5)) == .applied(epoch: try await other.open(room: "r").epoch, rev: 1, seq: 1))
            let submission = Task { try await node.sync.submit(room: "r", client: "c", user: "u", seq: 1, ops: Self.set("/a/b", 1)) }
            // Valid against this node's empty replica, so it goes to Redis, which answers `behind`;
            // once the loop runs the node folds rev 1, checks again, and the patch is refused.
            try await Self.waitUntil("Redis answered behind") { await node.sync.contentionRetries == 1 }
            open.yield()
            guard case .rejected = try await submission.value else { Issue.record("the patch must be rejected at rev 1"); return }
            #expect(await node.sync.state(of: "r")?.rev == 1)
            #expect(try await other.open(room: "r").rev == 1)
            node.loop.cancel()
        }
    }

    @Test("a node pipelines its own patches: each is appended after the previous one's Redis reply, checked against the speculative head, before the follower brings any back")
    func ownPatchesArePipelined() async throws {
        try await RedisTestContext.with { context in
            let (gate, release) = AsyncStream<Void>.makeStream()
            let start = Task { for await _ in gate { return } }
            let node = Node(context: context, start: start)
            let folded = Mailbox<Int64>()
            try await node.sync.open(room: "r") { event in
                if case .folded(let patch, _) = event { folded.push(patch.rev) }
            }
            // The follow loop is held: nothing is folded, yet every submission is appended in turn.
            #expect(try await node.sync.submit(room: "r", client: "c", user: "u", seq: 1, ops: Self.set("/a", 1)) == .applied(rev: 1))
            #expect(try await node.sync.submit(room: "r", client: "c", user: "u", seq: 2, ops: Self.set("/b", 2)) == .applied(rev: 2))
            #expect(try await node.sync.submit(room: "r", client: "d", user: "u", seq: 1, ops: Self.set("/c", 3)) == .applied(rev: 3))
            #expect(await node.sync.state(of: "r")?.rev == 0)
            #expect(await node.sync.contentionRetries == 0, "checked against the speculative head, nothing was behind")
            // Invalid only against the speculative head (/a is a number there): rejected, but not before
            // the acks of revs 1…3 have been released, which needs the follower.
            let rejected = Task { try await node.sync.submit(room: "r", client: "c", user: "u", seq: 3, ops: Self.set("/a/x", 1)) }
            try await Task.sleep(for: .milliseconds(50))
            #expect(folded.all.isEmpty)
            release.yield()
            guard case .rejected = try await rejected.value else { Issue.record("setting beneath a number must be rejected"); return }
            #expect(folded.all == [1, 2, 3], "the reject is answered only after the node's earlier patches were folded")
            #expect(await node.sync.state(of: "r")?.replica.document.root == .object(["a": .number(1), "b": .number(2), "c": .number(3)]))
            node.loop.cancel()
        }
    }

    @Test("a patch on an older base is rebased over this node's own appended patches that are not folded yet")
    func rebasedOverTheSpeculativeHead() async throws {
        try await RedisTestContext.with { context in
            // The node's own replica type: the one that keeps an edit history to rebase over.
            let node = HeldNode(context: context)
            let sync = node.sync
            try await sync.open(room: "r")
            func ops(_ json: String) -> [UInt8] { Array(json.utf8) }
            // The follow loop is held: each patch is checked against the speculative head.
            #expect(try await sync.submit(room: "r", client: "a", user: "u", seq: 1, ops: ops(#"[{"op":"set","path":"/list","value":["x"]}]"#)) == .applied(rev: 1))
            #expect(try await sync.submit(room: "r", client: "a", user: "u", seq: 2, ops: ops(#"[{"op":"add","path":"/list/0","value":"a"}]"#), base: 1) == .applied(rev: 2))
            // Made on rev 1, before "a" was inserted: it means the element "x", now at index 1.
            #expect(try await sync.submit(room: "r", client: "b", user: "u", seq: 1, ops: ops(#"[{"op":"replace","path":"/list/0","value":"y"}]"#), base: 1) == .applied(rev: 3))
            node.startFollowing()
            try await Self.waitUntil("rev 3 is folded") { await sync.state(of: "r")?.rev == 3 }
            let list = await sync.state(of: "r")?.replica.document.root.objectValue?["list"]
            #expect(list == .array([.string("a"), .string("y")]), "\(String(describing: list))")
            node.loop.cancel()
        }
    }

    @Test("a patch of top-level sets and removes is appended after another node's patches without a retry; one that depends on the state waits for them")
    func anyStatePatchesSkipTheRevCheck() async throws {
        try await RedisTestContext.with { context in
            let held = HeldNode(context: context)
            let other = Node(context: context)
            try await held.sync.open(room: "r")
            try await other.sync.open(room: "r")
            #expect(try await other.sync.submit(room: "r", client: "o", user: "u", seq: 1, ops: Self.set("/b", 1)) == .applied(rev: 1))
            // The held node has not folded rev 1: its head is at rev 0.
            func submit(seq: Int64, path: String) -> Mailbox<Result<ClusterSubmitOutcome, ClusterError>> {
                let outcome = Mailbox<Result<ClusterSubmitOutcome, ClusterError>>()
                let ops = Self.set(path, seq)
                held.sync.enqueue(room: "r", .init(client: "h", user: "u", seq: seq, ops: ops, parsed: try? ClusterDocumentReplica.ops(ops)) { outcome.push($0) })
                return outcome
            }
            let topLevel = submit(seq: 1, path: "/a")
            try await Self.waitUntil("appended without folding rev 1") { topLevel.all.count == 1 }
            #expect(try topLevel.all.first?.get() == .applied(rev: 2))
            #expect(await held.sync.contentionRetries == 0)
            // Beneath /b (a number on rev 1, absent on the held head): checked at rev 2 after the fold.
            let nested = submit(seq: 2, path: "/b/x")
            try await Self.waitUntil("sent back once") { await held.sync.contentionRetries >= 1 }
            #expect(nested.all.isEmpty)
            held.startFollowing()
            try await Self.waitUntil("answered after the fold") { nested.all.count == 1 }
            guard case .success(.rejected) = nested.all.first else { Issue.record("\(nested.all)"); return }
            try await Self.waitUntil("both nodes folded rev 2") {
                let heldRev = await held.sync.state(of: "r")?.rev, otherRev = await other.sync.state(of: "r")?.rev
                return heldRev == 2 && otherRev == 2
            }
            let heldDocument = await held.sync.state(of: "r")?.replica.document, otherDocument = await other.sync.state(of: "r")?.replica.document
            #expect(heldDocument == otherDocument)
            held.loop.cancel()
            other.loop.cancel()
        }
    }

    @Test("a node's own patch is folded and fanned out as the node received it parsed, not parsed again from the log")
    func ownPatchesAreParsedOnce() async throws {
        try await RedisTestContext.with { context in
            let node = HeldNode(context: context)
            let sync = node.sync
            let folded = Mailbox<PatchEvent>()
            try await sync.open(room: "r") { event in
                if case .folded(_, let event) = event { folded.push(event) }
            }
            // A probe: parsed ops that are not the bytes' (a node never does this) show which of the two the fold took.
            let parsed = [PatchOp.set(try JSONPointer(parsing: "/a"), .number(2))]
            let applied = Mailbox<Result<ClusterSubmitOutcome, ClusterError>>()
            sync.enqueue(room: "r", .init(client: "c", user: "u", seq: 1, ops: Self.set("/a", 1), parsed: parsed) { applied.push($0) })
            sync.enqueue(room: "r", .init(client: "c", user: "u", seq: 2, ops: Self.set("/b", 1)) { applied.push($0) })
            try await Self.waitUntil("Redis answered both") { applied.all.count == 2 }
            // The follow loop starts after the replies: the own events are waiting for their fold.
            node.startFollowing()
            try await Self.waitUntil("both are folded") { folded.all.count == 2 }
            #expect(folded.all.map(\.ops) == [parsed, try ClusterDocumentReplica.ops(Self.set("/b", 1))])
            #expect(folded.all.first?.encodedOps == Self.set("/a", 1), "the logged bytes go to the connections")
            #expect(await sync.state(of: "r")?.replica.document.root == .object(["a": .number(2), "b": .number(1)]))
            node.loop.cancel()
        }
    }

    @Test("group commit: the patches queued while a batch is at Redis go in one script call, each checked against the earlier ones of its batch")
    func queuedPatchesGoInOneCall() async throws {
        try await RedisTestContext.with { context in
            let node = Node(context: context)
            try await node.sync.open(room: "r")
            let admin = try await context.connect()
            _ = try await admin.send(["CONFIG", "RESETSTAT"])
            // The first batch is held at Redis while the other 49 patches queue behind it.
            _ = try await admin.send(["CLIENT", "PAUSE", "30000", "WRITE"])
            let outcomes = Mailbox<(Int, Result<ClusterSubmitOutcome, ClusterError>)>()
            for index in 1...50 {
                // Patch 30 sets beneath /a, which patch 29 of the same batch made a number: rejected.
                let ops = index == 30 ? Self.set("/a/x", 1) : Self.set(index == 29 ? "/a" : "/k\(index)", Int64(index))
                node.sync.enqueue(room: "r", .init(client: "c", user: "u", seq: Int64(index), ops: ops) { outcomes.push((index, $0)) })
            }
            _ = try await admin.send(["CLIENT", "UNPAUSE"])
            try await Self.waitUntil("every outcome") { outcomes.all.count == 50 }
            var revs: [Int64] = []
            for (index, outcome) in outcomes.all.sorted(by: { $0.0 < $1.0 }) {
                switch outcome {
                case .success(.applied(let rev)): revs.append(rev)
                case .success(.rejected): #expect(index == 30)
                default: Issue.record("patch \(index): \(outcome)")
                }
            }
            #expect(revs == Array(1...49), "in call order, the rejected one without a rev")
            let calls = try await Self.evalshaCalls(admin: admin)
            #expect(calls.map { $0 <= 2 } == true, "one call for the first patch, one for the 49 queued behind it: \(String(describing: calls))")
            try await Self.waitUntil("rev 49 is folded") { await node.sync.state(of: "r")?.rev == 49 }
            #expect(await node.sync.state(of: "r")?.replica.document.root.objectValue?["a"] == .number(29))
            node.loop.cancel()
        }
    }

    @Test("the batches of rooms that queue while the node's calls are at Redis go together in the next call, each room answered as alone")
    func queuedRoomsGoInOneCall() async throws {
        try await RedisTestContext.with { context in
            let node = Node(context: context)
            let rooms = (1...40).map { "r\($0)" }
            for room in rooms { try await node.sync.open(room: room) }
            let admin = try await context.connect()
            _ = try await admin.send(["CONFIG", "RESETSTAT"])
            _ = try await admin.send(["CLIENT", "PAUSE", "30000", "WRITE"])
            let outcomes = Mailbox<(String, Result<ClusterSubmitOutcome, ClusterError>)>()
            for room in rooms {
                node.sync.enqueue(room: room, .init(client: "c", user: "u", seq: 1, ops: Self.set("/n", 1)) { outcomes.push((room, $0)) })
            }
            try await Self.waitUntil("every room's batch is at Redis or waits for it") { await node.sync.sequencer.pendingRoomBatches == 40 }
            _ = try await admin.send(["CLIENT", "UNPAUSE"])
            try await Self.waitUntil("every outcome") { outcomes.all.count == 40 }
            for room in rooms {
                #expect(outcomes.all.filter { $0.0 == room }.map { try? $0.1.get() } == [.applied(rev: 1)], "\(room)")
            }
            let calls = try await Self.evalshaCalls(admin: admin)
            #expect(calls.map { $0 <= AppendCoalescer.maxCalls + 1 } == true, "a call for each of the first rooms, one for the rest queued behind them: \(String(describing: calls))")
            node.loop.cancel()
        }
    }

    @Test("paced group commit: a call starts at least the interval after the one before; the rooms' batches that come meanwhile go together in it, and a batch after a quiet interval goes at once")
    func pacedCallsCarryWhatCameMeanwhile() async throws {
        try await RedisTestContext.with { context in
            let clock = ManualClock()
            let node = Node(context: context, commitInterval: .milliseconds(2), clock: clock)
            let rooms = (1...10).map { "r\($0)" }
            for room in rooms { try await node.sync.open(room: room) }
            let admin = try await context.connect()
            _ = try await admin.send(["CONFIG", "RESETSTAT"])
            let outcomes = Mailbox<(String, Result<ClusterSubmitOutcome, ClusterError>)>()
            // Without the clock moving: a batch that waited for a pause would never be answered.
            node.sync.enqueue(room: "r1", .init(client: "c", user: "u", seq: 1, ops: Self.set("/n", 1)) { outcomes.push(("r1", $0)) })
            try await Self.waitUntil("the first batch goes at once") { outcomes.all.count == 1 }
            #expect(outcomes.all.first.flatMap { try? $0.1.get() } == .applied(rev: 1))
            try await Self.waitUntil("the call began a pause") { clock.sleeperCount == 1 }
            for room in rooms.dropFirst() {
                node.sync.enqueue(room: room, .init(client: "c", user: "u", seq: 1, ops: Self.set("/n", 1)) { outcomes.push((room, $0)) })
            }
            try await Self.waitUntil("the nine batches wait for the pause to end") { await node.sync.sequencer.pendingRoomBatches == 9 }
            #expect(try await Self.evalshaCalls(admin: admin) == 1)
            #expect(outcomes.all.count == 1, "only the first")
            clock.advance(by: .milliseconds(2))
            try await Self.waitUntil("every outcome") { outcomes.all.count == 10 }
            for room in rooms.dropFirst() {
                #expect(outcomes.all.filter { $0.0 == room }.map { try? $0.1.get() } == [.applied(rev: 1)], "\(room)")
            }
            #expect(try await Self.evalshaCalls(admin: admin) == 2, "the nine in one call")
            // That call began a pause of its own; after it, with nothing waiting, a batch goes at once.
            try await Self.waitUntil("that call began a pause") { clock.sleeperCount == 1 }
            clock.advance(by: .milliseconds(2))
            try await Self.waitUntil("the pause is over") { await node.sync.sequencer.commitPaused == false }
            node.sync.enqueue(room: "r1", .init(client: "c", user: "u", seq: 2, ops: Self.set("/n", 2)) { outcomes.push(("r1", $0)) })
            try await Self.waitUntil("the lone batch goes at once") { outcomes.all.count == 11 }
            #expect(outcomes.all.last.flatMap { try? $0.1.get() } == .applied(rev: 2))
            #expect(try await Self.evalshaCalls(admin: admin) == 3)
            try await Self.waitUntil("the last call began a pause") { clock.sleeperCount == 1 }
            clock.advance(by: .milliseconds(2))
            node.loop.cancel()
        }
    }

    @Test("paced group commit: a room waiting for its turn takes its batch when the pause ends, with the patches that reached it meanwhile: one log entry")
    func aRoomTakesWhatArrivesBeforeItsTurn() async throws {
        try await RedisTestContext.with { context in
            let (node, clock, admin) = try await Self.pausedNode(context, rooms: ["r1", "r2"])
            let outcomes = Mailbox<(Int64, Result<ClusterSubmitOutcome, ClusterError>)>()
            node.sync.enqueue(room: "r2", .init(client: "c", user: "u", seq: 1, ops: Self.set("/n", 1)) { outcomes.push((1, $0)) })
            try await Self.waitUntil("r2 waits for its turn") { await node.sync.sequencer.pendingRoomBatches == 1 }
            for seq in Int64(2)...3 {
                node.sync.enqueue(room: "r2", .init(client: "c", user: "u", seq: seq, ops: Self.set("/n", seq)) { outcomes.push((seq, $0)) })
            }
            clock.advance(by: .milliseconds(2))
            try await Self.waitUntil("every outcome") { outcomes.all.count == 3 }
            #expect(outcomes.all.sorted { $0.0 < $1.0 }.map { try? $0.1.get() } == [.applied(rev: 1), .applied(rev: 2), .applied(rev: 3)])
            #expect(try await admin.send(["XLEN", RedisArgument(node.sync.sequencer.keys(room: "r2").log)]).integer == 1, "the three patches in one entry")
            #expect(try await Self.evalshaCalls(admin: admin) == 2)
            try await Self.endPause(clock)
            node.loop.cancel()
        }
    }

    @Test("paced group commit: a room let in at the end of a pause with nothing to send (closed meanwhile) does not hold up the others' call")
    func aRoomWithNothingAtItsTurnWithdraws() async throws {
        try await RedisTestContext.with { context in
            let (node, clock, _) = try await Self.pausedNode(context, rooms: ["r1", "r2", "r3"])
            let outcomes = Mailbox<(String, Result<ClusterSubmitOutcome, ClusterError>)>()
            for room in ["r2", "r3"] {
                node.sync.enqueue(room: room, .init(client: "c", user: "u", seq: 1, ops: Self.set("/n", 1)) { outcomes.push((room, $0)) })
            }
            try await Self.waitUntil("both wait for their turn") { await node.sync.sequencer.pendingRoomBatches == 2 }
            await node.sync.close(room: "r2")
            try await Self.waitUntil("r2's patch failed") { outcomes.all.count == 1 }
            clock.advance(by: .milliseconds(2))
            try await Self.waitUntil("r3's outcome") { outcomes.all.count == 2 }
            #expect(outcomes.all.first { $0.0 == "r2" }.map { if case .failure(.roomReset) = $0.1 { true } else { false } } == true, "closed")
            #expect(outcomes.all.first { $0.0 == "r3" }.flatMap { try? $0.1.get() } == .applied(rev: 1))
            #expect(await node.sync.sequencer.pendingRoomBatches == 0)
            try await Self.endPause(clock)
            node.loop.cancel()
        }
    }

    /// A node whose calls are paced 2 ms on a manual clock, with `rooms` open, statistics reset, and a
    /// first patch of the first room sent: its call began a pause, which only advancing the clock ends.
    static func pausedNode(_ context: RedisTestContext, rooms: [String]) async throws -> (Node, ManualClock, RedisConnection) {
        let clock = ManualClock()
        let node = Node(context: context, commitInterval: .milliseconds(2), clock: clock)
        for room in rooms { try await node.sync.open(room: room) }
        let admin = try await context.connect()
        _ = try await admin.send(["CONFIG", "RESETSTAT"])
        node.sync.enqueue(room: rooms[0], .init(client: "c", user: "u", seq: 1, ops: Self.set("/n", 1)) { _ in })
        try await waitUntil("the first call began a pause") { clock.sleeperCount == 1 }
        return (node, clock, admin)
    }

    /// Ends the pause the last call began (so the node's pause task finishes before the test does).
    static func endPause(_ clock: ManualClock) async throws {
        try await waitUntil("the last call began a pause") { clock.sleeperCount == 1 }
        clock.advance(by: .milliseconds(2))
    }

    @Test("when Redis loses the room, waiting submissions fail as reset and the room can be opened again in a new epoch")
    func resetAfterDataLoss() async throws {
        try await RedisTestContext.with { context in
            let node = Node(context: context)
            let events = Mailbox<ClusterRoomEvent>()
            let before = try await node.sync.open(room: "r") { event in events.push(event) }
            #expect(try await node.sync.submit(room: "r", client: "c", user: "u", seq: 1, ops: Self.set("/a", 1)) == .applied(rev: 1))
            try await Self.waitUntil("rev 1 is folded") { await node.sync.state(of: "r")?.rev == 1 }
            _ = try await context.client().send(["FLUSHALL"])
            try await Self.waitUntil("the follower notices") { await node.sync.state(of: "r") == nil }
            await #expect(throws: ClusterError.roomNotOpen("r")) { try await node.sync.submit(room: "r", client: "c", user: "u", seq: 2, ops: Self.set("/a", 2)) }
            #expect(events.all.count == 2)
            #expect(events.all.last == .reset(reason: "the room's epoch changed in Redis"))
            let after = try await node.sync.open(room: "r")
            #expect(after.created && after.epoch != before.epoch && after.rev == 0)
            node.loop.cancel()
        }
    }

    /// The script calls Redis counted since the last `CONFIG RESETSTAT`.
    static func evalshaCalls(admin: RedisConnection) async throws -> Int? {
        let stats = try await admin.send(["INFO", "commandstats"]).string ?? ""
        return stats.split(separator: "\r\n").first { $0.hasPrefix("cmdstat_evalsha:") }?
            .split(separator: "calls=").dropFirst().first?.split(separator: ",").first.flatMap { Int($0) }
    }

    /// Polls an async condition every few milliseconds, bounded by 60 s.
    static func waitUntil(_ what: String, _ condition: () async -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(60))
        while await !condition() {
            guard clock.now < deadline else {
                Issue.record("timed out waiting until \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
