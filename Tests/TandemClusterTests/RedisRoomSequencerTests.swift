import Synchronization
import Testing
@testable import TandemCluster
import TandemProtocol
import TandemRedis
import TandemTestSupport
import TandemWire

@Suite("Room sequencer in Redis", .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct RedisRoomSequencerTests {
    static let op = Array(#"[{"op":"set","path":"/n","value":1}]"#.utf8)

    /// Client `client` of user `u`, as these tests append.
    static func u(_ client: String) -> Peer { Peer(user: "u", client: client) }

    /// The progress field of client `client` of user `u`.
    static func field(_ client: String) -> RedisArgument { RedisArgument(RoomKeys.progressField(author: u(client))) }

    @Test("a batch is sequenced in one call: each entry as alone, and after the first one that ends otherwise than expected the rest are skipped")
    func batchesStopAtTheFirstSurprise() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client())
            let head = try await sequencer.open(room: "r")
            func entry(_ client: String, _ seq: Int64, refused: String? = nil) -> SequencerEntry {
                SequencerEntry(client: client, user: "u", seq: seq, ops: Self.op, localRejection: refused)
            }
            let e = head.epoch
            // All as expected, the node's own reject included: revs continue over it.
            #expect(try await sequencer.append(room: "r", [entry("a", 1), entry("b", 1, refused: "no"), entry("a", 2)], baseRev: 0)
                    == [.applied(epoch: e, rev: 1, seq: 1), .rejected(epoch: e, reason: "no"), .applied(epoch: e, rev: 2, seq: 2)])
            // A duplicate in the middle: what follows was checked against a state that does not exist.
            #expect(try await sequencer.append(room: "r", [entry("c", 1), entry("a", 2), entry("c", 2)], baseRev: 2)
                    == [.applied(epoch: e, rev: 3, seq: 1), .duplicate(epoch: e, rev: 2), .skipped])
            // Behind at the first entry: nothing is looked at.
            #expect(try await sequencer.append(room: "r", [entry("c", 2), entry("c", 3)], baseRev: 2) == [.behind(epoch: e, rev: 3), .skipped])
            // Ops no node checked are judged by the sequencer before the script runs: a malformed one is an
            // expected reject, and the batch goes on past it.
            let bad = SequencerEntry(client: "c", user: "u", seq: 2, ops: Array("x".utf8))
            let refused = try await sequencer.append(room: "r", [bad, entry("c", 3)], baseRev: 3)
            guard case .rejected(e, let reason) = refused.first else { Issue.record("\(refused)"); return }
            #expect(ClusterRejection.decode(reason).code == .invalidOp && ClusterRejection.decode(reason).message.hasPrefix(#"op 0: "ops" must be a JSON array"#))
            #expect(refused.dropFirst() == [.applied(epoch: e, rev: 4, seq: 3)])
            #expect(try await sequencer.patches(room: "r", after: 0).map { "\($0.client)\($0.seq)" } == ["a1", "a2", "c1", "c3"])
            #expect(try await sequencer.head(room: "r")?.rev == 4)
            _ = try await context.client().send(["FLUSHALL"])
            #expect(try await sequencer.append(room: "r", [entry("a", 3), entry("a", 4)], baseRev: nil) == [.lost, .lost])
        }
    }

    @Test("ops no node applied are admitted or refused as a single server does (the shared admission vectors): the script judges no patch, and the log never holds one that fails to fold")
    func unvalidatedOpsMeetTheServersRules() async throws {
        let vectors = try AdmissionVectors.load()
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client(), settings: .init(maxOps: vectors.maxOps))
            let epoch = try await sequencer.open(room: "r").epoch
            var applied: [Int64] = []
            for (index, vector) in vectors.cases.enumerated() {
                let seq = Int64(index + 1)
                let outcome = try await sequencer.append(room: "r", client: "c", user: "u", seq: seq, ops: Array(vector.text.utf8))
                if let code = vector.code {
                    guard case .rejected(epoch, let reason) = outcome else { Issue.record("case \(index): \(outcome)"); continue }
                    let decoded = ClusterRejection.decode(reason)
                    #expect(decoded.code == code && decoded.message == vector.message, "case \(index)")
                } else {
                    guard case .applied(epoch, _, seq) = outcome else { Issue.record("case \(index): \(outcome)"); continue }
                    applied.append(seq)
                }
            }
            #expect(try await sequencer.patches(room: "r", after: 0).map(\.seq) == applied)
        }
    }

    @Test("several rooms' batches in one call end exactly as each in its own call: a lost room among them loses only its own")
    func roomsInOneCall() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client())
            let epochs = [try await sequencer.open(room: "a").epoch, try await sequencer.open(room: "c").epoch]
            _ = try await sequencer.open(room: "b")
            _ = try await context.client().send(["DEL", RedisArgument(sequencer.keys(room: "b").meta)])
            func entry(_ seq: Int64, refused: String? = nil) -> SequencerEntry {
                SequencerEntry(client: "k", user: "u", seq: seq, ops: Self.op, localRejection: refused)
            }
            let outcomes = try await sequencer.append([
                .init(room: "a", entries: [entry(1), entry(2)], baseRev: 0, validated: true),
                .init(room: "b", entries: [entry(1)], baseRev: 0, validated: true),
                .init(room: "c", entries: [entry(1, refused: "no"), entry(2)], baseRev: 0, validated: false),
                .init(room: "a", entries: [entry(2), entry(3)], baseRev: 2, validated: true),
            ])
            #expect(outcomes == [
                [.applied(epoch: epochs[0], rev: 1, seq: 1), .applied(epoch: epochs[0], rev: 2, seq: 2)],
                [.lost],
                [.rejected(epoch: epochs[1], reason: "no"), .applied(epoch: epochs[1], rev: 1, seq: 2)],
                [.duplicate(epoch: epochs[0], rev: 2), .skipped],
            ])
            #expect(try await sequencer.patches(room: "a", after: 0).map(\.seq) == [1, 2])
            #expect(try await sequencer.patches(room: "c", after: 0).map(\.seq) == [2])
        }
    }

    @Test("a batch is one log entry; the log keeps at least its window in revs, whole batches older than it go (from a window of 1,000 on, every 64 revs)")
    func logEntriesAreBatchesTrimmedByRev() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client(), settings: .init(logLength: 1_000))
            _ = try await sequencer.open(room: "r")
            for batch in 0..<25 {
                let entries = (1...100).map { SequencerEntry(client: "c", user: "u", seq: Int64(batch * 100 + $0), ops: Self.op) }
                _ = try await sequencer.append(room: "r", entries, baseRev: nil)
            }
            let log = RedisArgument(sequencer.keys(room: "r").log)
            // Revs 1501–2500 are the window: the batches from 1501 on stay, the one ending at 1500 is gone.
            #expect(try await context.client().send(["XLEN", log]).integer == 10)
            let ids = try await context.client().send(["XRANGE", log, "-", "+"]).array?.compactMap { $0.array?.first?.string }
            #expect(ids == (15..<25).map { "\($0 * 100 + 1)-0" }, "an entry's id is its first rev")
            #expect(try await sequencer.oldestLoggedRev(room: "r") == 1_501)
            #expect(try await sequencer.patches(room: "r", after: 1_500, limit: 2_000).map(\.rev) == Array(1_501...2_500))
            // A read from inside a batch starts right after the rev asked for, and stops at the limit.
            #expect(try await sequencer.patches(room: "r", after: 1_949, limit: 3).map(\.rev) == [1_950, 1_951, 1_952])
            // One patch per batch: a trim at each multiple of 64 (2,560, 2,624, 2,688), the last to rev 1,689,
            // so the batch of 1,601–1,700, which holds it, stays whole: the window, up to 63 revs, and the
            // rest of a batch.
            for seq in Int64(2_501)...2_700 { _ = try await sequencer.append(room: "r", client: "c", user: "u", seq: seq, ops: Self.op) }
            #expect(try await sequencer.oldestLoggedRev(room: "r") == 1_601)
            #expect(try await sequencer.patches(room: "r", after: 1_600, limit: 2_000).map(\.rev) == Array(1_601...2_700))
        }
    }

    @Test("every appended batch, epoch change and deletion is told on the room's change channel with what followers need")
    func changesAreTold() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client(), now: { 42 })
            let messages = Mailbox<[UInt8]>()
            let subscriber = try await RedisSubscriber.connect(to: context.endpoint, on: context.group.next(), receive: { push in
                if case .message(_, let payload) = push { messages.push(payload) }
            }, closed: { _ in })
            subscriber.subscribe([sequencer.changesChannel(room: "r")])
            let admin = try await context.connect()
            try await Self.waitUntil { (try? await admin.send(["PUBSUB", "SHARDCHANNELS"]).array?.count) == 1 }
            let head = try await sequencer.open(room: "r")
            _ = try await sequencer.append(room: "r", [SequencerEntry(client: "c", user: "u", seq: 1, ops: Self.op),
                                                       SequencerEntry(client: "d", user: "v", seq: 7, ops: Array("[]".utf8))], baseRev: 0)
            _ = try await sequencer.append(room: "r", [SequencerEntry(client: "c", user: "u", seq: 1, ops: Self.op)], baseRev: nil)
            try await sequencer.publish(room: "r", RoomSignal(node: "n", payload: [0, 58, 255]))
            #expect(try await sequencer.delete(room: "r"))
            try await Self.waitUntil { messages.all.count == 4 }
            #expect(messages.all.map(RoomChangeMessage.init) == [
                .epoch(head.epoch),
                .patches([SequencedPatch(epoch: head.epoch, rev: 1, user: "u", client: "c", seq: 1, ops: Self.op, time: 42),
                          SequencedPatch(epoch: head.epoch, rev: 2, user: "v", client: "d", seq: 7, ops: Array("[]".utf8), time: 42)]),
                .signal(RoomSignal(node: "n", payload: [0, 58, 255])),
                .epoch(nil),
            ], "a batch with nothing appended tells nothing")
            subscriber.close()
        }
    }

    /// Polls a condition every few milliseconds, bounded by 30 s.
    static func waitUntil(_ condition: () async -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(30))
        while clock.now < deadline {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(2))
        }
        Issue.record("condition not met within 30 s")
    }

    @Test("change messages round-trip through their wire form; malformed ones decode to nil")
    func changeMessagesRoundTrip() {
        let messages: [RoomChangeMessage] = [
            .patches([SequencedPatch(epoch: "e", rev: 9, user: "ü:1", client: "c", seq: 3, ops: Array("[1:2]".utf8), time: 5)]),
            .patches([SequencedPatch(epoch: "e", rev: 1, user: "u", client: "c", seq: 3, ops: Array("[]".utf8), time: 5),
                      SequencedPatch(epoch: "e", rev: 2, user: "v", client: "d", seq: 1, ops: Array("[]".utf8), time: 5)]),
            .epoch("abc"), .epoch(nil), .signal(RoomSignal(node: "n", payload: [])),
        ]
        for message in messages { #expect(RoomChangeMessage(message.encoded) == message) }
        #expect(RoomChangeMessage(Array("B1:e1:72:101:u1:c1:31:x1:v1:d1:12:[]".utf8)) == .patches([
            SequencedPatch(epoch: "e", rev: 7, user: "u", client: "c", seq: 3, ops: Array("x".utf8), time: 10),
            SequencedPatch(epoch: "e", rev: 8, user: "v", client: "d", seq: 1, ops: Array("[]".utf8), time: 10),
        ]), "revs follow the first one, every patch has the batch's time")
        for bad in ["", "X1:a", "E", "E1:", "E2:a", "E1:ab", "P1:e1:9", "B1:e1:71:0", "B1:e1:71:01:u1:c1:3", "B1:e1:x1:01:u1:c1:31:x",
                    "Sa:b", "E99999999999:a", "S1:n"] {
            #expect(RoomChangeMessage(Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    @Test("concurrent writers on several connections get contiguous revs, each patch logged once in rev order")
    func concurrentWritersGetContiguousRevs() async throws {
        try await RedisTestContext.with { context in
            let sequencers = (0..<4).map { _ in RedisRoomSequencer(client: context.client()) }
            let head = try await sequencers[0].open(room: "r")
            #expect(head.rev == 0 && head.created)
            let revs = try await withThrowingTaskGroup(of: [Int64].self) { tasks in
                for (writer, sequencer) in sequencers.enumerated() {
                    tasks.addTask {
                        var revs: [Int64] = []
                        for seq in Int64(1)...50 {
                            guard case .applied(let epoch, let rev, _) = try await sequencer.append(room: "r", client: "c\(writer)", user: "u", seq: seq, ops: Self.op) else {
                                Issue.record("writer \(writer) seq \(seq) not applied")
                                continue
                            }
                            #expect(epoch == head.epoch)
                            revs.append(rev)
                        }
                        // Each writer's own revs rise with its seqs.
                        #expect(revs == revs.sorted())
                        return revs
                    }
                }
                return try await tasks.reduce(into: []) { $0 += $1 }
            }
            #expect(revs.sorted() == Array(1...200))
            let log = try await sequencers[1].patches(room: "r", after: 0)
            #expect(log.map(\.rev) == Array(1...200))
            for writer in 0..<4 {
                #expect(log.filter { $0.client == "c\(writer)" }.map(\.seq) == Array(1...50))
            }
            #expect(try await sequencers[2].open(room: "r") == RoomHead(epoch: head.epoch, rev: 200, created: false))
        }
    }

    @Test("a resent seq is not applied again and answers with its original rev")
    func duplicatesAreNotReapplied() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client())
            _ = try await sequencer.open(room: "r")
            let first = try await sequencer.append(room: "r", client: "a", user: "u", seq: 1, ops: Self.op)
            guard case .applied(let epoch, 1, _) = first else { Issue.record("got \(first)"); return }
            _ = try await sequencer.append(room: "r", client: "b", user: "u", seq: 1, ops: Self.op)
            _ = try await sequencer.append(room: "r", client: "a", user: "u", seq: 2, ops: Self.op)
            #expect(try await sequencer.append(room: "r", client: "a", user: "u", seq: 2, ops: Self.op) == .duplicate(epoch: epoch, rev: 3))
            // An older seq (a resent batch) finds its rev in the log.
            #expect(try await sequencer.append(room: "r", client: "a", user: "u", seq: 1, ops: Self.op) == .duplicate(epoch: epoch, rev: 1))
            #expect(try await sequencer.open(room: "r").rev == 3)
            #expect(try await sequencer.patches(room: "r", after: 0).count == 3)
            // Inside a batch of several patches (one log entry) too, and after later batches.
            _ = try await sequencer.append(room: "r", (3...5).map { SequencerEntry(client: "a", user: "u", seq: $0, ops: Self.op) }, baseRev: nil)
            _ = try await sequencer.append(room: "r", [SequencerEntry(client: "b", user: "u", seq: 2, ops: Self.op)], baseRev: nil)
            #expect(try await sequencer.append(room: "r", client: "a", user: "u", seq: 4, ops: Self.op) == .duplicate(epoch: epoch, rev: 5))
            #expect(try await sequencer.append(room: "r", client: "a", user: "u", seq: 2, ops: Self.op) == .duplicate(epoch: epoch, rev: 3))
            #expect(try await sequencer.open(room: "r").rev == 7)
        }
    }

    @Test("every op of protocol v1 passes the script's checks")
    func acceptsEveryOp() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client(), settings: .init(maxOps: 8, maxPatchBytes: 1_024))
            _ = try await sequencer.open(room: "r")
            let ops = #"""
                [{"op":"set","path":"/a","value":null},{"op":"add","path":"/l","value":[]},{"op":"replace","path":"/a","value":1},
                 {"op":"test","path":"/a","value":1},{"op":"copy","from":"/a","path":"/b"},{"op":"move","from":"/b","path":"/l/-"},
                 {"op":"remove","path":"/a"}]
                """#
            guard case .applied(_, 1, _) = try await sequencer.append(room: "r", client: "a", user: "u", seq: 1, ops: Array(ops.utf8)) else {
                Issue.record("refused"); return
            }
        }
    }

    @Test("patches over the limits or malformed are rejected, with their reject code, without consuming a rev", arguments: [
        ("not json", RejectCode.invalidOp, #"op 0: "ops" must be a JSON array: "#),
        (#"[{"op":"set","path":"/a","value":null},{"op":"set","value":2}]"#, .invalidPath, #"op 1: invalid path "": "path" must be a string"#),
        (#"[{"op":"remove","path":"/a"},{"op":"remove","path":"/b"},{"op":"remove","path":"/c"}]"#, .tooManyOps, "patch has 3 ops; at most 2 are allowed"),
        (#"[{"op":"set","path":"/a","value":"\#(String(repeating: "x", count: 200))"}]"#, .tooLarge, "the patch has 237 bytes; at most 128 are allowed"),
    ])
    func rejectsBadPatches(ops: String, code: RejectCode, reason: String) async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client(), settings: .init(maxOps: 2, maxPatchBytes: 128))
            _ = try await sequencer.open(room: "r")
            let outcome = try await sequencer.append(room: "r", client: "a", user: "u", seq: 1, ops: Array(ops.utf8))
            guard case .rejected(_, let encoded) = outcome else { Issue.record("got \(outcome)"); return }
            let (found, message) = ClusterRejection.decode(encoded)
            #expect(found == code && message.contains(reason))
            #expect(try await sequencer.open(room: "r").rev == 0)
            // The seq was not consumed either: the client may send it again, fixed.
            guard case .applied(_, 1, _) = try await sequencer.append(room: "r", client: "a", user: "u", seq: 1, ops: Self.op) else {
                Issue.record("a valid patch after a rejected one should apply at rev 1"); return
            }
        }
    }

    @Test("seqs outside 1...2^53-1 are rejected (0 asks for the next one); the largest one is stored and read back exactly", arguments: [Int64(-1), 1 << 53, .max])
    func seqRange(seq: Int64) async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client())
            _ = try await sequencer.open(room: "r")
            guard case .rejected(_, let reason) = try await sequencer.append(room: "r", client: "a", user: "u", seq: seq, ops: Self.op) else {
                Issue.record("seq \(seq) must be rejected"); return
            }
            #expect(ClusterRejection.decode(reason) == (.invalidOp, "seq must be a whole number from 1 to 2^53 - 1"))
            let largest: Int64 = (1 << 53) - 1
            guard case .applied = try await sequencer.append(room: "r", client: "a", user: "u", seq: largest, ops: Self.op) else {
                Issue.record("seq 2^53 - 1 must apply"); return
            }
            #expect(try await sequencer.patches(room: "r", after: 0).map(\.seq) == [largest])
            guard case .duplicate(_, 1) = try await sequencer.append(room: "r", client: "a", user: "u", seq: largest, ops: Self.op) else {
                Issue.record("the same seq again must be a duplicate of rev 1"); return
            }
        }
    }

    @Test("with a base rev, a patch checked against an older state is refused as behind")
    func compareWithBaseRev() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client())
            let head = try await sequencer.open(room: "r")
            #expect(try await sequencer.append(room: "r", client: "a", user: "u", seq: 1, ops: Self.op, baseRev: 0) == .applied(epoch: head.epoch, rev: 1, seq: 1))
            #expect(try await sequencer.append(room: "r", client: "b", user: "u", seq: 1, ops: Self.op, baseRev: 0) == .behind(epoch: head.epoch, rev: 1))
            #expect(try await sequencer.append(room: "r", client: "b", user: "u", seq: 1, ops: Self.op, baseRev: 1) == .applied(epoch: head.epoch, rev: 2, seq: 1))
        }
    }

    @Test("the log keeps only the resume window; a reader far behind sees the gap")
    func logIsCapped() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client(), settings: .init(logLength: 5))
            _ = try await sequencer.open(room: "r")
            for seq in Int64(1)...8 { _ = try await sequencer.append(room: "r", client: "a", user: "u", seq: seq, ops: Self.op) }
            let log = try await sequencer.patches(room: "r", after: 0)
            #expect(log.map(\.rev) == [4, 5, 6, 7, 8])
            #expect(log.first?.ops == Self.op)
            #expect(try await sequencer.patches(room: "r", after: 6).map(\.rev) == [7, 8])
        }
    }

    @Test("after Redis loses the room (FLUSHALL, or a restart without persistence) the room gets a new epoch")
    func epochChangesAfterDataLoss() async throws {
        try await RedisTestContext.with { context in
            let client = context.client()
            let sequencer = RedisRoomSequencer(client: client)
            let before = try await sequencer.open(room: "r")
            _ = try await sequencer.append(room: "r", client: "a", user: "u", seq: 1, ops: Self.op)
            #expect(try await sequencer.open(room: "r").epoch == before.epoch)
            _ = try await client.send(["FLUSHALL"])
            // A write does not create the lost room (a node may re-seed it first); opening it does, and
            // the old client progress is gone too.
            #expect(try await sequencer.append(room: "r", client: "a", user: "u", seq: 2, ops: Self.op) == .lost)
            let reopened = try await sequencer.open(room: "r")
            #expect(reopened.created && reopened.rev == 0 && reopened.epoch != before.epoch)
            #expect(try await sequencer.append(room: "r", client: "a", user: "u", seq: 2, ops: Self.op) == .applied(epoch: reopened.epoch, rev: 1, seq: 2))
        }
    }

    @Test("a redis-server restart without persistence gives the room a new epoch once the client reconnects")
    func epochChangesAfterRestart() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client())
            let before = try await sequencer.open(room: "r")
            await context.server.stop()
            let restarted = try await RedisServerProcess.start(port: context.server.port)
            let after = try await sequencer.open(room: "r")
            #expect(after.created && after.rev == 0 && after.epoch != before.epoch)
            await restarted.stop()
        }
    }

    @Test("after a restart that kept the data (AOF), an untrusted Redis gives the room a new epoch but keeps rev and log; a trusted one keeps the epoch; the same whether the scripts read the run id or the connection did",
          arguments: [false, true], [false, true])
    func epochAfterRestartWithData(trusted: Bool, connectionReadsRunID: Bool) async throws {
        try await RedisTestContext.with { context in
            let first = try await RedisServerProcess.start(appendOnly: true)
            let endpoint = RedisEndpoint(host: "127.0.0.1", port: first.port)
            var configuration = RedisClient.Configuration(endpoint: endpoint)
            configuration.readsServerRunID = connectionReadsRunID
            let sequencer = RedisRoomSequencer(client: RedisClient(configuration: configuration, group: context.group),
                                               settings: .init(trustsPersistence: trusted))
            let before = try await sequencer.open(room: "r")
            for seq in Int64(1)...3 { _ = try await sequencer.append(room: "r", client: "c", user: "u", seq: seq, ops: Self.op) }
            #expect(try await sequencer.open(room: "r") == RoomHead(epoch: before.epoch, rev: 3, created: false))
            await first.stop(keepingData: true)
            let second = try await RedisServerProcess.start(port: first.port, directory: first.directory, appendOnly: true)
            let after = try await sequencer.open(room: "r")
            #expect(after.rev == 3 && !after.created)
            #expect(after.rotated == !trusted)
            #expect((after.epoch == before.epoch) == trusted)
            // The rotation happens once; the log survives for rebuilding the document.
            #expect(try await sequencer.open(room: "r") == RoomHead(epoch: after.epoch, rev: 3, created: false))
            #expect(try await sequencer.patches(room: "r", after: 0).map(\.rev) == [1, 2, 3])
            #expect(try await sequencer.append(room: "r", client: "c", user: "u", seq: 4, ops: Self.op) == .applied(epoch: after.epoch, rev: 4, seq: 4))
            await second.stop()
        }
    }

    @Test("a snapshot is stored only for the current epoch and only when newer")
    func snapshots() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client())
            let head = try await sequencer.open(room: "r")
            #expect(try await sequencer.snapshot(room: "r") == nil)
            let state = Array(#"{"n":1}"#.utf8)
            #expect(try await sequencer.storeSnapshot(room: "r", RoomSnapshot(epoch: head.epoch, rev: 5, state: state)))
            #expect(try await !sequencer.storeSnapshot(room: "r", RoomSnapshot(epoch: head.epoch, rev: 4, state: [])))
            #expect(try await !sequencer.storeSnapshot(room: "r", RoomSnapshot(epoch: "other", rev: 9, state: [])))
            #expect(try await sequencer.snapshot(room: "r") == RoomSnapshot(epoch: head.epoch, rev: 5, state: state))
        }
    }

    @Test("an author's progress field is one rule in two languages: the Lua prelude builds the field Swift builds, and Swift reads its author back")
    func progressFieldsAgreeInSwiftAndLua() async throws {
        let vectors = [Peer(user: "alice", client: "ios-host"), Peer(user: "", client: ""), Peer(user: "a:1", client: "b"), Peer(user: "ü", client: "x:y"),
                       Peer(user: "ab", client: "c"), Peer(user: "a", client: "bc"), Peer(user: "\u{1F}", client: "\u{0}"), Peer(user: "10", client: ":7")]
        #expect(Set(vectors.map(RoomKeys.progressField(author:))).count == vectors.count, "no two authors share a field")
        try await RedisTestContext.with { context in
            let client = context.client()
            let probe = RedisScript(RoomSequencerScripts.prelude + "return progressField(ARGV[1], ARGV[2])")
            for author in vectors {
                let lua = try await client.evaluate(probe, keys: [], arguments: [RedisArgument(author.user), RedisArgument(author.client)])
                #expect(lua.string == RoomKeys.progressField(author: author), "\(author)")
                #expect(RoomKeys.author(ofProgressField: RoomKeys.progressField(author: author)) == author)
            }
        }
        #expect(RoomKeys.author(ofProgressField: "c:ios") == nil && RoomKeys.author(ofProgressField: "a:9:short") == nil
                && RoomKeys.author(ofProgressField: "epoch") == nil)
    }

    @Test("progress kept per bare client id (an earlier release's `c:` fields) reads as forgotten, and the next sweep drops it")
    func unownedProgressIsForgotten() async throws {
        try await RedisTestContext.with { context in
            // Ten hours on the sequencer's clock: a first sweep is due at the first stored snapshot.
            let sequencer = RedisRoomSequencer(client: context.client(), now: { 36_000_000 })
            let admin = context.client()
            let head = try await sequencer.open(room: "r")
            _ = try await sequencer.append(room: "r", client: "a", user: "u", seq: 1, ops: Self.op)
            let meta = RedisArgument(sequencer.keys(room: "r").meta)
            #expect(try await !sequencer.clientProgress(room: "r").forgot)
            _ = try await admin.send(["HSET", meta, "c:ios-host", "7:1:36000000"])
            let progress = try await sequencer.clientProgress(room: "r")
            #expect(progress.forgot && Set(progress.clients.keys) == [Self.u("a")], "whose the field was is not known")
            // Naming that client id gives no one its seqs: the old field is read by nobody.
            #expect(try await sequencer.append(room: "r", client: "ios-host", user: "mallory", seq: 1, ops: Self.op) == .applied(epoch: head.epoch, rev: 2, seq: 1))
            #expect(try await sequencer.storeSnapshot(room: "r", RoomSnapshot(epoch: head.epoch, rev: 2, state: Array("{}".utf8))))
            #expect(try await admin.send(["HEXISTS", meta, "c:ios-host"]).integer == 0, "dropped by the sweep")
            #expect(try await admin.send(["HGET", meta, "forgot"]).string == "1")
        }
    }

    @Test("a lost room is re-seeded from a node's copy: new epoch, rev 0, the copy as snapshot, the clients' last seqs; never over an existing room")
    func seedBringsBackALostRoom() async throws {
        try await RedisTestContext.with { context in
            let client = context.client()
            let sequencer = RedisRoomSequencer(client: client)
            let before = try await sequencer.open(room: "r")
            for seq in Int64(1)...3 { _ = try await sequencer.append(room: "r", client: "a", user: "u", seq: seq, ops: Self.op) }
            let copy = Array(#"{"n":1}"#.utf8)
            #expect(try await sequencer.seed(room: "r", state: copy, epoch: before.epoch, lastSeqs: [Self.u("a"): 3]) == .exists, "the room exists: nothing to seed")
            #expect(try await sequencer.open(room: "r") == RoomHead(epoch: before.epoch, rev: 3, created: false))

            _ = try await client.send(["FLUSHALL"])
            #expect(try await sequencer.seed(room: "r", state: copy, epoch: before.epoch, lastSeqs: [Self.u("a"): 3, Self.u("b"): 7], forgot: true) == .seeded)
            #expect(try await sequencer.seed(room: "r", state: Array("{}".utf8), epoch: before.epoch, lastSeqs: [:]) == .exists, "the first seed wins")
            let head = try await sequencer.open(room: "r")
            #expect(head.epoch != before.epoch && head.rev == 0 && !head.created)
            #expect(try await sequencer.snapshot(room: "r") == RoomSnapshot(epoch: head.epoch, rev: 0, state: copy))
            let progress = try await sequencer.clientProgress(room: "r")
            #expect(progress.clients[Self.u("a")]?.lastSeq == 3 && progress.clients[Self.u("a")]?.lastRev == 0 && progress.clients[Self.u("b")]?.lastSeq == 7)
            #expect(progress.forgot, "the copy's room had forgotten clients: the new one says so")
            // Exactly-once survives the loss: seq 3 is a duplicate, seq 4 is the next patch.
            #expect(try await sequencer.append(room: "r", client: "a", user: "u", seq: 3, ops: Self.op) == .duplicate(epoch: head.epoch, rev: 0))
            #expect(try await sequencer.append(room: "r", client: "a", user: "u", seq: 4, ops: Self.op) == .applied(epoch: head.epoch, rev: 1, seq: 4))
        }
    }

    @Test("a stored snapshot keeps the clients' progress bounded: beyond the cap the least recently applied go, and the room says it forgot")
    func progressIsCappedAtSnapshots() async throws {
        try await RedisTestContext.with { context in
            var settings = RedisRoomSequencer.Settings()
            settings.maxTrackedClients = 16
            let sequencer = RedisRoomSequencer(client: context.client(), settings: settings, now: { 1_000_000 })
            let head = try await sequencer.open(room: "r")
            for n in 1...20 { _ = try await sequencer.append(room: "r", client: "c\(n)", user: "u", seq: 1, ops: Self.op) }
            #expect(try await sequencer.clientProgress(room: "r").clients.count == 20)
            #expect(try await sequencer.storeSnapshot(room: "r", RoomSnapshot(epoch: head.epoch, rev: 20, state: Array("{}".utf8))))
            let progress = try await sequencer.clientProgress(room: "r")
            #expect(Set(progress.clients.keys) == Set((5...20).map { Self.u("c\($0)") }), "the four applied first went")
            #expect(progress.forgot)
            #expect(progress.clients[Self.u("c20")]?.lastSeq == 1 && progress.clients[Self.u("c20")]?.lastRev == 20)
            // Exactly-once holds for the remembered; a forgotten client's seq is new again (the welcome says so).
            #expect(try await sequencer.append(room: "r", client: "c20", user: "u", seq: 1, ops: Self.op) == .duplicate(epoch: head.epoch, rev: 20))
            #expect(try await sequencer.append(room: "r", client: "c1", user: "u", seq: 1, ops: Self.op) == .applied(epoch: head.epoch, rev: 21, seq: 1))
        }
    }

    @Test("a stored snapshot drops the progress of clients not heard from for the TTL, at most once per sweep interval; progress without a time gets the sweep's")
    func progressExpiresAtSnapshots() async throws {
        try await RedisTestContext.with { context in
            let hour: Int64 = 3_600_000
            var settings = RedisRoomSequencer.Settings()
            settings.progressTTL = hour
            let clock = Atomic<Int64>(10 * hour)
            let sequencer = RedisRoomSequencer(client: context.client(), settings: settings, now: { clock.load(ordering: .relaxed) })
            let admin = context.client()
            let head = try await sequencer.open(room: "r")
            let meta = RedisArgument(sequencer.keys(room: "r").meta)
            _ = try await sequencer.append(room: "r", client: "a", user: "u", seq: 1, ops: Self.op)
            _ = try await admin.send(["HSET", meta, Self.field("old"), "4:1"])
            clock.store(12 * hour, ordering: .relaxed)
            _ = try await sequencer.append(room: "r", [SequencerEntry(client: "b", user: "u", seq: 1, ops: Self.op)], baseRev: nil, validated: true,
                                           head: (head.epoch, 1))
            #expect(try await admin.send(["HGET", meta, Self.field("b")]).string == "1:2:\(12 * hour)", "the short form's progress carries the call's time")
            #expect(try await sequencer.storeSnapshot(room: "r", RoomSnapshot(epoch: head.epoch, rev: 2, state: Array("{}".utf8))))
            var progress = try await sequencer.clientProgress(room: "r")
            #expect(Set(progress.clients.keys) == [Self.u("b"), Self.u("old")] && progress.forgot, "a, two hours old, went")
            #expect(try await admin.send(["HGET", meta, Self.field("old")]).string == "4:1:\(12 * hour)")

            // The next sweep is due an hour later: a stale entry waits for it.
            _ = try await admin.send(["HSET", meta, Self.field("stale"), "1:1:0"])
            clock.store(12 * hour + 60_000, ordering: .relaxed)
            _ = try await sequencer.append(room: "r", client: "b", user: "u", seq: 2, ops: Self.op)
            #expect(try await sequencer.storeSnapshot(room: "r", RoomSnapshot(epoch: head.epoch, rev: 3, state: Array("{}".utf8))))
            #expect(try await sequencer.clientProgress(room: "r").clients[Self.u("stale")] != nil)
            clock.store(13 * hour + 1, ordering: .relaxed)
            _ = try await sequencer.append(room: "r", client: "b", user: "u", seq: 3, ops: Self.op)
            #expect(try await sequencer.storeSnapshot(room: "r", RoomSnapshot(epoch: head.epoch, rev: 4, state: Array("{}".utf8))))
            progress = try await sequencer.clientProgress(room: "r")
            #expect(Set(progress.clients.keys) == [Self.u("b")], "the stale entry and old (stamped an hour ago) went")
            #expect(try await admin.send(["HGET", meta, Self.field("b")]).string == "3:4:\(13 * hour + 1)", "the long form's progress carries the call's time")
        }
    }

    @Test("seq 0 takes the client's next seq from Redis; every entry carries the node's time")
    func assignedSeqsAndTimes() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client(), now: { 1_750_000_000_123 })
            let head = try await sequencer.open(room: "r")
            #expect(try await sequencer.append(room: "r", client: "http", user: "b", seq: 0, ops: Self.op) == .applied(epoch: head.epoch, rev: 1, seq: 1))
            #expect(try await sequencer.append(room: "r", client: "a", user: "u", seq: 1, ops: Self.op) == .applied(epoch: head.epoch, rev: 2, seq: 1))
            #expect(try await sequencer.append(room: "r", client: "http", user: "b", seq: 0, ops: Self.op) == .applied(epoch: head.epoch, rev: 3, seq: 2))
            let logged = try await sequencer.patches(room: "r", after: 0)
            #expect(logged.map(\.seq) == [1, 1, 2] && logged.allSatisfy { $0.time == 1_750_000_000_123 })
            let current = try await sequencer.head(room: "r")
            #expect(current?.epoch == head.epoch && current?.rev == 3)
            #expect(try await sequencer.oldestLoggedRev(room: "r") == 1)
        }
    }

    @Test("a deleted room is gone with its log and snapshots, its epoch marked so that no node seeds it back; a new room starts over")
    func deleteLeavesAMarker() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client())
            let before = try await sequencer.open(room: "r")
            _ = try await sequencer.append(room: "r", client: "a", user: "u", seq: 1, ops: Self.op)
            #expect(try await sequencer.storeSnapshot(room: "r", RoomSnapshot(epoch: before.epoch, rev: 1, state: Array(#"{"n":1}"#.utf8))))
            #expect(try await sequencer.delete(room: "r"))
            #expect(try await sequencer.delete(room: "r") == false)
            #expect(try await sequencer.head(room: "r") == nil)
            #expect(try await sequencer.snapshot(room: "r", atOrBefore: 5) == nil)
            #expect(try await sequencer.deletedEpoch(room: "r") == before.epoch)
            #expect(try await sequencer.seed(room: "r", state: Array("{}".utf8), epoch: before.epoch, lastSeqs: [Self.u("a"): 1]) == .deleted)
            let after = try await sequencer.open(room: "r")
            #expect(after.created && after.epoch != before.epoch && after.rev == 0)
        }
    }

    @Test("stored snapshots are kept as long as the log they rebuild from; the newest one at or before a rev is found")
    func snapshotsAreKeptForTheHistory() async throws {
        try await RedisTestContext.with { context in
            var settings = RedisRoomSequencer.Settings(logLength: 4)
            settings.snapshotInterval = 2
            let sequencer = RedisRoomSequencer(client: context.client(), settings: settings)
            let head = try await sequencer.open(room: "r")
            for rev in stride(from: Int64(2), through: 12, by: 2) {
                #expect(try await sequencer.storeSnapshot(room: "r", RoomSnapshot(epoch: head.epoch, rev: rev, state: Array("{\"n\":\(rev)}".utf8))))
            }
            // At 12 with 4 revs of log and snapshots every 2: kept from rev 6 on.
            #expect(try await sequencer.snapshot(room: "r", atOrBefore: 5) == nil)
            #expect(try await sequencer.snapshot(room: "r", atOrBefore: 7)?.rev == 6)
            #expect(try await sequencer.snapshot(room: "r", atOrBefore: 11)?.state == Array(#"{"n":10}"#.utf8))
            #expect(try await sequencer.snapshot(room: "r", atOrBefore: 99)?.rev == 12)
        }
    }

    @Test("with a retention in time, a stored snapshot drops the older entries (in pages, never within the resume window, never past one without a time) and the snapshots only they needed")
    func retentionInTimeTrimsTheLog() async throws {
        try await RedisTestContext.with { context in
            let clock = Atomic<Int64>(0)
            var settings = RedisRoomSequencer.Settings(logLength: 10_000)
            settings.snapshotInterval = 100
            settings.retainedMilliseconds = 100_000
            settings.resumeWindow = 50
            let sequencer = RedisRoomSequencer(client: context.client(), settings: settings, now: { clock.load(ordering: .relaxed) })
            let head = try await sequencer.open(room: "r")
            func append(through last: Int64) async throws {
                while let current = try await sequencer.head(room: "r")?.rev, current < last {
                    clock.store((current + 1) * 1_000, ordering: .relaxed)
                    _ = try await sequencer.append(room: "r", client: "a", user: "u", seq: current + 1, ops: Self.op)
                }
            }
            func snapshot(at rev: Int64) async throws -> Bool {
                try await sequencer.storeSnapshot(room: "r", RoomSnapshot(epoch: head.epoch, rev: rev, state: Array("{\"n\":\(rev)}".utf8)))
            }
            for rev in stride(from: Int64(100), through: 300, by: 100) {
                try await append(through: rev)
                #expect(try await snapshot(at: rev))
            }
            // At 200 s revs 1–99 were old, but no snapshot rebuilt rev 100 yet; at 300 s revs 1–199 are, and back to the snapshot at 100 they go.
            #expect(try await sequencer.oldestLoggedRev(room: "r") == 101)
            #expect(try await sequencer.snapshot(room: "r", atOrBefore: 100)?.rev == 100)
            for rev in stride(from: Int64(400), through: 600, by: 100) {
                try await append(through: rev)
                // A node whose clock lags stores these: to it, nothing retained is old yet.
                clock.store(150_000, ordering: .relaxed)
                #expect(try await snapshot(at: rev))
            }
            try await append(through: 700)
            clock.store(10_000_000, ordering: .relaxed)
            #expect(try await snapshot(at: 700))
            // Everything is old now, but the resume window (the newest 50 revs) stays, back to the snapshot at 600; revs 101–650 took three pages.
            #expect(try await sequencer.oldestLoggedRev(room: "r") == 601)
            #expect(try await sequencer.snapshot(room: "r", atOrBefore: 599) == nil, "no snapshot is kept that the retained log does not need")
            #expect(try await sequencer.snapshot(room: "r", atOrBefore: 650)?.rev == 600)

            // An entry without a time (written before entries carried one) is never dropped by age, nor anything after it.
            let keys = sequencer.keys(room: "r")
            _ = try await context.client().send(["XADD", RedisArgument(keys.log), "701-0", "epoch", RedisArgument(head.epoch), "user", "u", "client", "a", "seq", "701",
                                                 "ops", RedisArgument(bytes: Self.op)])
            _ = try await context.client().send(["HSET", RedisArgument(keys.meta), "rev", "701"])
            try await append(through: 900)
            clock.store(20_000_000, ordering: .relaxed)
            #expect(try await snapshot(at: 800))
            #expect(try await sequencer.oldestLoggedRev(room: "r") == 701)
        }
    }

    @Test("a retention in time cuts the log only after a snapshot that ends a batch's entry: a snapshot inside one keeps it whole (entries keyed by their first rev, with their time in the message, or as an earlier release wrote them)",
          arguments: [false, true])
    func retentionCutsAtBatchEnds(earlierRelease: Bool) async throws {
        try await RedisTestContext.with { context in
            var settings = RedisRoomSequencer.Settings(logLength: 10_000)
            settings.retainedMilliseconds = 100_000
            let sequencer = RedisRoomSequencer(client: context.client(), settings: settings, now: { 1_000_000 })
            let head = try await sequencer.open(room: "r")
            // Entries of revs 1–3, 4–6, 7–9, 10–12, each written long ago from now's point of view.
            let writer = RedisRoomSequencer(client: context.client(), settings: settings, now: { 1_000 })
            for batch in Int64(0)..<4 {
                _ = try await writer.append(room: "r", (1...3).map { SequencerEntry(client: "a", user: "u", seq: batch * 3 + $0, ops: Self.op) }, baseRev: nil)
            }
            if earlierRelease { try await Self.asEarlierRelease(sequencer.keys(room: "r").log, client: context.client()) }
            func snapshot(at rev: Int64) async throws -> Bool {
                try await sequencer.storeSnapshot(room: "r", RoomSnapshot(epoch: head.epoch, rev: rev, state: Array("{\"n\":\(rev)}".utf8)))
            }
            #expect(try await snapshot(at: 5))
            #expect(try await sequencer.oldestLoggedRev(room: "r") == 1, "rev 5 is inside the entry of 4–6: cutting there would lose revs 4 and 5")
            #expect(try await snapshot(at: 9))
            #expect(try await sequencer.oldestLoggedRev(room: "r") == 10)
            #expect(try await sequencer.snapshot(room: "r", atOrBefore: 8) == nil)
            #expect(try await sequencer.patches(room: "r", after: 9).map(\.rev) == [10, 11, 12])
            // The newest entry ends at the room's rev: a snapshot there lets the whole log go.
            #expect(try await snapshot(at: 12))
            #expect(try await sequencer.oldestLoggedRev(room: "r") == nil)
        }
    }

    /// Rewrites `log` as an earlier release wrote it: every entry keyed by its last rev, with `first`
    /// and `time` fields next to its change message.
    static func asEarlierRelease(_ log: String, client: RedisClient) async throws {
        let copy = log + ":earlier"
        for entry in try await client.send(["XRANGE", RedisArgument(log), "-", "+"]).array ?? [] {
            guard let fields = entry.array?[1].array, fields.count == 2, case .bulkString(let message) = fields[1],
                  case .patches(let batch)? = RoomChangeMessage(message), let first = batch.first, let last = batch.last else {
                Issue.record("not an entry of one batch: \(entry)")
                continue
            }
            _ = try await client.send(["XADD", RedisArgument(copy), RedisArgument("\(last.rev)-0"), "first", RedisArgument(first.rev),
                                       "time", RedisArgument(first.time), "m", RedisArgument(bytes: message)])
        }
        _ = try await client.send(["RENAME", RedisArgument(copy), RedisArgument(log)])
    }

    @Test("a log written by an earlier release (entries keyed by their last rev) reads on: from inside an entry, an older seq's rev, then entries of both kinds")
    func entriesOfAnEarlierReleaseRead() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client(), settings: .init(logLength: 100_000))
            let head = try await sequencer.open(room: "r")
            for batch in 0..<5 {
                _ = try await sequencer.append(room: "r", (1...10).map { SequencerEntry(client: "c", user: "u", seq: Int64(batch * 10 + $0), ops: Self.op) },
                                               baseRev: nil)
            }
            let log = sequencer.keys(room: "r").log
            let ids = { try await context.client().send(["XRANGE", RedisArgument(log), "-", "+"]).array?.compactMap { $0.array?.first?.string } }
            #expect(try await ids() == ["1-0", "11-0", "21-0", "31-0", "41-0"], "keyed by their first rev, as this release writes them")
            try await Self.asEarlierRelease(log, client: context.client())
            #expect(try await ids() == ["10-0", "20-0", "30-0", "40-0", "50-0"])
            #expect(try await sequencer.patches(room: "r", after: 0).map(\.rev) == Array(1...50))
            #expect(try await sequencer.patches(room: "r", after: 14, limit: 3).map(\.rev) == [15, 16, 17])
            #expect(try await sequencer.patches(room: "r", after: 45).map(\.rev) == Array(46...50), "inside the newest entry")
            #expect(try await sequencer.oldestLoggedRev(room: "r") == 1)
            // No entry's id reaches the client's last rev (50): the newest entry holds it.
            #expect(try await sequencer.append(room: "r", client: "c", user: "u", seq: 45, ops: Self.op) == .duplicate(epoch: head.epoch, rev: 45))
            _ = try await sequencer.append(room: "r", (51...53).map { SequencerEntry(client: "c", user: "u", seq: $0, ops: Self.op) }, baseRev: nil)
            #expect(try await ids() == ["10-0", "20-0", "30-0", "40-0", "50-0", "51-0"])
            #expect(try await sequencer.patches(room: "r", after: 44).map(\.rev) == Array(45...53))
            #expect(try await sequencer.patches(room: "r", after: 51).map(\.rev) == [52, 53])
        }
    }
}
