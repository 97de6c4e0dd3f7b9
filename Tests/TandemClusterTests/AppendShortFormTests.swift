import Testing
@testable import TandemCluster
import TandemRedis
import TandemTestSupport
import TandemWire

@Suite("The append script's short form", .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct AppendShortFormTests {
    static let op = Array(#"[{"op":"set","path":"/n","value":1}]"#.utf8)

    /// Every room the same epoch, so two rooms' keys can be compared byte for byte.
    struct SameEpoch: RandomByteSource {
        func bytes(count: Int) -> [UInt8] { Array(repeating: 7, count: count) }
    }

    static func entry(_ client: String, _ seq: Int64, refused: String? = nil) -> SequencerEntry {
        SequencerEntry(client: client, user: "user-\(client)", seq: seq, ops: op, localRejection: refused)
    }

    /// A room's meta hash and log as Redis holds them.
    static func contents(of room: String, _ sequencer: RedisRoomSequencer, admin: RedisConnection) async throws -> String {
        let keys = sequencer.keys(room: room)
        let meta = try await admin.send(["HGETALL", RedisArgument(keys.meta)]).array ?? []
        var fields: [String: String] = [:]
        for index in stride(from: 0, to: meta.count - 1, by: 2) where meta[index].string != "run" {
            fields[meta[index].string ?? ""] = meta[index + 1].string
        }
        let log = try await admin.send(["XRANGE", RedisArgument(keys.log), "-", "+"])
        return "\(fields.sorted { $0.key < $1.key })\n\(log)"
    }

    @Test("the short form writes the same meta, log entries and trims as the long form, at the expected rev and shifted past other nodes' patches")
    func sameWritesAsTheLongForm() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client(), settings: .init(logLength: 4), random: SameEpoch(), now: { 1_700_000_000_000 })
            let admin = try await context.connect()
            let epoch = try await sequencer.open(room: "short").epoch
            #expect(try await sequencer.open(room: "long").epoch == epoch)
            // The short room's batch in one call (the short form taken, not sent back), the long room's in the long form.
            func both(_ entries: [SequencerEntry], head rev: Int64, checksRev: Bool = false) async throws -> [[SequencerOutcome]] {
                #expect(AppendShortForm(entries, epoch: epoch, rev: rev, checksRev: checksRev, validated: true, time: 0, settings: sequencer.settings) != nil)
                _ = try await admin.send(["CONFIG", "RESETSTAT"])
                let short = try await sequencer.append(room: "short", entries, baseRev: checksRev ? rev : nil, validated: true, head: (epoch, rev))
                #expect(try await ClusterRoomSyncTests.evalshaCalls(admin: admin) == 1)
                return [short, try await sequencer.append(room: "long", entries, baseRev: checksRev ? rev : nil, validated: true)]
            }
            // At the expected rev, with the rev checked: one client twice, another once.
            let first = try await both([Self.entry("a", 1), Self.entry("b", 1), Self.entry("a", 2)], head: 0, checksRev: true)
            #expect(first[0] == [.applied(epoch: epoch, rev: 1, seq: 1), .applied(epoch: epoch, rev: 2, seq: 1), .applied(epoch: epoch, rev: 3, seq: 2)])
            #expect(first[0] == first[1])
            // Another node appends two patches the node has not seen: a batch for any state lands after them.
            for room in ["short", "long"] { _ = try await sequencer.append(room: room, [Self.entry("x", 1), Self.entry("x", 2)], baseRev: nil) }
            let shifted = try await both([Self.entry("b", 2), Self.entry("a", 3)], head: 3)
            #expect(shifted[0] == [.applied(epoch: epoch, rev: 6, seq: 2), .applied(epoch: epoch, rev: 7, seq: 3)])
            #expect(shifted[0] == shifted[1])
            // Gaps in seqs are fine, as in the long form.
            #expect(try await both([Self.entry("a", 9)], head: 7).allSatisfy { $0 == [.applied(epoch: epoch, rev: 8, seq: 9)] })
            // A window of 4 revs trims at every append, in both forms alike.
            #expect(try await Self.contents(of: "short", sequencer, admin: admin) == Self.contents(of: "long", sequencer, admin: admin))
            #expect(try await sequencer.oldestLoggedRev(room: "short") == 4)
        }
    }

    @Test("a batch Redis finds otherwise than expected (a duplicate, a room that moved on, a lost room, another epoch) gets the long form's outcome in a second call")
    func surprisesGoAgainInTheLongForm() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client())
            let admin = try await context.connect()
            let epoch = try await sequencer.open(room: "r").epoch
            /// The outcomes of one append and the script calls it took.
            func append(_ entries: [SequencerEntry], baseRev: Int64?, head: Int64) async throws -> ([SequencerOutcome], Int?) {
                _ = try await admin.send(["CONFIG", "RESETSTAT"])
                let outcomes = try await sequencer.append(room: "r", entries, baseRev: baseRev, validated: true, head: (epoch, head))
                return (outcomes, try await ClusterRoomSyncTests.evalshaCalls(admin: admin))
            }
            // Expected: one call.
            let whole = try await append([Self.entry("a", 1), Self.entry("a", 2)], baseRev: 0, head: 0)
            #expect(whole.0 == [.applied(epoch: epoch, rev: 1, seq: 1), .applied(epoch: epoch, rev: 2, seq: 2)] && whole.1 == 1)
            // A resent seq: the long form knows its original rev.
            let resent = try await append([Self.entry("a", 2), Self.entry("a", 3)], baseRev: nil, head: 2)
            #expect(resent.0 == [.duplicate(epoch: epoch, rev: 2), .skipped] && resent.1 == 2)
            // The rev checked and the room moved on: behind at once, in one call.
            let behind = try await append([Self.entry("a", 3), Self.entry("a", 4)], baseRev: 1, head: 1)
            #expect(behind.0 == [.behind(epoch: epoch, rev: 2), .skipped] && behind.1 == 1)
            // The node's head is of another epoch: the long form appends in the room's and says which.
            #expect(try await sequencer.append(room: "r", [Self.entry("a", 3)], baseRev: nil, validated: true, head: ("old", 2))
                    == [.applied(epoch: epoch, rev: 3, seq: 3)])
            _ = try await admin.send(["FLUSHALL"])
            #expect(try await sequencer.append(room: "r", [Self.entry("a", 4)], baseRev: nil, validated: true, head: (epoch, 3)) == [.lost])
            #expect(try await sequencer.patches(room: "r", after: 0).isEmpty)
        }
    }

    @Test("two batches of one room in one call keep their order even when the first would be sent back to the long form")
    func oneRoomTwiceKeepsItsOrder() async throws {
        try await RedisTestContext.with { context in
            let sequencer = RedisRoomSequencer(client: context.client())
            let epoch = try await sequencer.open(room: "r").epoch
            // The first batch's head is of another epoch (sent back), the second's is right.
            let results = try await sequencer.append([
                .init(room: "r", entries: [Self.entry("a", 1)], baseRev: nil, validated: true, head: ("old", 0)),
                .init(room: "r", entries: [Self.entry("b", 1)], baseRev: nil, validated: true, head: (epoch, 1)),
            ])
            #expect(results == [[.applied(epoch: epoch, rev: 1, seq: 1)], [.applied(epoch: epoch, rev: 2, seq: 1)]])
        }
    }

    @Test("only a batch that can be appended whole has a short form: validated, no rejection of the node's, seqs from 1 to 2^53 − 1 rising per client, within the size limit")
    func whichBatchesHaveAShortForm() {
        let settings = RedisRoomSequencer.Settings(maxPatchBytes: 64)
        func form(_ entries: [SequencerEntry], validated: Bool = true) -> AppendShortForm? {
            AppendShortForm(entries, epoch: "e", rev: 10, checksRev: false, validated: validated, time: 5, settings: settings)
        }
        #expect(form([Self.entry("a", 1), Self.entry("b", 7), Self.entry("a", 2)]) != nil)
        #expect(form([Self.entry("a", 1)], validated: false) == nil)
        #expect(form([]) == nil)
        #expect(form([Self.entry("a", 1), Self.entry("b", 1, refused: "no")]) == nil)
        #expect(form([Self.entry("a", 0)]) == nil)
        #expect(form([Self.entry("a", 1 << 53)]) == nil)
        #expect(form([Self.entry("a", 2), Self.entry("a", 2)]) == nil)
        #expect(form([Self.entry("a", 3), Self.entry("a", 2)]) == nil)
        #expect(form([SequencerEntry(client: "a", user: "u", seq: 1, ops: Array(repeating: 32, count: 65))]) == nil)
        // The progress each client has after the batch, as if appended at rev 10: its last seq at its last patch's rev.
        let arguments = form([Self.entry("a", 1), Self.entry("b", 7), Self.entry("a", 2)])?.arguments ?? []
        // Each author's field is its user's client id (`RoomKeys.progressField(author:)`).
        #expect(arguments.suffix(6) == ["a:6:user-aa", "a:6:user-bb", "0:", "2:13:5", "6:", "7:12:5"], "with the call's time")
        // Two users naming one client id are two authors, each with its own progress.
        let shared = form([SequencerEntry(client: "ios", user: "alice", seq: 3, ops: Self.op), SequencerEntry(client: "ios", user: "mallory", seq: 1, ops: Self.op)])
        #expect(shared?.arguments.suffix(6) == ["a:5:aliceios", "a:7:malloryios", "2:", "3:11:5", "0:", "1:12:5"])
    }
}
