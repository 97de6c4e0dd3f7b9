import Testing
import TandemProtocol
@testable import TandemServer

@Suite struct RoomCoreTests {
    let alice = SessionIdentity(user: "alice", client: "a1", role: .host)
    let bob = SessionIdentity(user: "bob", client: "b1", role: .guest)
    let viewer = SessionIdentity(user: "vera", client: "v1", role: .viewer)

    private func makeRoom(_ settings: RoomCore.Settings = .init()) -> RoomCore {
        RoomCore.create(name: "lobby", epoch: "e1", settings: settings).0
    }

    private func set(_ path: String, _ value: JSONValue) -> PatchOp {
        .set(try! JSONPointer(parsing: path), value)
    }

    @Test("a room's default settings are the ones a server without options gives it")
    func theDefaultSettingsAreTheServerConfigurationsOwn() {
        #expect(RoomCore.Settings() == RoomSettings(ServerConfiguration()).core)
    }

    @Test func creatingARoomStoresAnEmptyDocument() {
        let (room, write) = RoomCore.create(name: "lobby", epoch: "e1", settings: .init())
        #expect(write == .createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8)))
        #expect(room.rev == 0)
        #expect(room.document == Document())
    }

    @Test func patchesGetContiguousRevsAndAreStored() throws {
        var room = makeRoom()
        let first = room.submit(seq: 1, ops: [set("/tabIndex", 1)], author: alice)
        let second = room.submit(seq: 1, ops: [set("/addToCartSelected", true)], author: bob)
        guard case .applied(let event1, let writes1, _) = first, case .applied(let event2, _, _) = second else {
            Issue.record("not applied: \(first), \(second)")
            return
        }
        #expect(event1 == PatchEvent(rev: 1, user: "alice", client: "a1", seq: 1, ops: [set("/tabIndex", 1)]))
        #expect(event2.rev == 2)
        #expect(writes1 == [.appendPatch(StoredPatch(room: "lobby", rev: 1, user: "alice", client: "a1", seq: 1,
                                                     ops: Array(#"[{"op":"set","path":"/tabIndex","value":1}]"#.utf8)))])
        // Encoded once: the event carries the bytes that are stored, and every frame splices them.
        #expect(event1.encodedOps == Array(#"[{"op":"set","path":"/tabIndex","value":1}]"#.utf8))
        #expect(room.document.root == ["tabIndex": 1, "addToCartSelected": true])
        #expect(room.lastSeq(of: alice.peer) == 1)
        #expect(room.lastSeq(of: Peer(user: "alice", client: "nobody")) == 0)
    }

    @Test func aResentSeqIsNeverAppliedTwice() {
        var room = makeRoom()
        _ = room.submit(seq: 1, ops: [set("/n", 1)], author: alice)
        _ = room.submit(seq: 2, ops: [set("/n", 2)], author: alice)
        _ = room.submit(seq: 1, ops: [set("/m", 1)], author: bob)
        #expect(room.submit(seq: 2, ops: [set("/n", 99)], author: alice) == .duplicate(seq: 2, rev: 2))
        #expect(room.submit(seq: 1, ops: [set("/n", 99)], author: alice) == .duplicate(seq: 1, rev: 1))
        #expect(room.document.root == ["n": 2, "m": 1])
        #expect(room.rev == 3)
    }

    @Test func aDuplicateOlderThanMemoryIsLookedUpInStorage() {
        var room = makeRoom(.init(recentCapacity: 2))
        for seq in Int64(1)...5 { _ = room.submit(seq: seq, ops: [set("/n", .number(Double(seq)))], author: alice) }
        #expect(room.submit(seq: 1, ops: [], author: alice) == .duplicate(seq: 1, rev: nil))
        #expect(room.submit(seq: 4, ops: [], author: alice) == .duplicate(seq: 4, rev: 4))
    }

    @Test func viewersAreForbidden() {
        var room = makeRoom()
        #expect(room.submit(seq: 1, ops: [set("/n", 1)], author: viewer) == .rejected(seq: 1, .forbidden(reason: "a viewer may not change the room")))
        #expect(room.rev == 0)
    }

    @Test func anInvalidPatchChangesNothingAndConsumesNoRevOrSeq() {
        var room = makeRoom()
        _ = room.submit(seq: 1, ops: [set("/a", "text")], author: alice)
        let outcome = room.submit(seq: 2, ops: [set("/b", 1), set("/a/inner", 2)], author: alice)
        guard case .rejected(2, let error) = outcome else {
            Issue.record("expected a reject, got \(outcome)")
            return
        }
        #expect(error.code == .invalidPath)
        #expect(room.document.root == ["a": "text"])
        #expect(room.rev == 1)
        #expect(room.lastSeq(of: alice.peer) == 1)
        // The same seq with a valid patch is then applied.
        guard case .applied(let event, _, _) = room.submit(seq: 2, ops: [set("/b", 1)], author: alice) else {
            Issue.record("valid retry not applied")
            return
        }
        #expect(event.rev == 2)
    }

    @Test func limitsFromSettingsAreEnforced() {
        var room = makeRoom(.init(limits: PatchLimits(maxOps: 2, maxDocument: 40)))
        let tooMany = room.submit(seq: 1, ops: [set("/a", 1), set("/b", 1), set("/c", 1)], author: alice)
        let tooLarge = room.submit(seq: 1, ops: [set("/a", .string(String(repeating: "x", count: 64)))], author: alice)
        #expect(tooMany == .rejected(seq: 1, .tooManyOps(count: 3, limit: 2)))
        guard case .rejected(_, let error) = tooLarge else { Issue.record("not rejected"); return }
        #expect(error.code == .tooLarge)
    }

    @Test func seqZeroIsRejected() {
        var room = makeRoom()
        guard case .rejected(0, let error) = room.submit(seq: 0, ops: [set("/n", 1)], author: alice) else {
            Issue.record("seq 0 accepted")
            return
        }
        #expect(error.code == .invalidOp)
    }

    @Test func aRoomKeepingDaysOfHistoryExpiresTheRestWithEachSnapshot() {
        var settings = RoomCore.Settings(historyWindow: 4, retainedRevisions: 0, recentCapacity: 100, snapshotInterval: 3)
        settings.retainedMilliseconds = 86_400_000
        var room = makeRoom(settings)
        var expiries: [StorageWrite] = []
        for seq in Int64(1)...6 {
            guard case .applied(_, let writes, _) = room.submit(seq: seq, ops: [set("/n", .number(Double(seq)))], author: alice, now: 90_000_000 + seq)
            else { continue }
            expiries += writes.filter { if case .expireHistory = $0 { true } else { false } }
        }
        let expected: [StorageWrite] = [
            .expireHistory(room: "lobby", olderThan: 3_600_003, keepingFrom: 1),
            .expireHistory(room: "lobby", olderThan: 3_600_006, keepingFrom: 3),
        ]
        #expect(expiries == expected)
    }

    @Test func snapshotsAreTakenEveryIntervalAndTrimOutsideTheWindow() {
        var room = makeRoom(.init(historyWindow: 4, retainedRevisions: 0, recentCapacity: 100, snapshotInterval: 3))
        var snapshots: [StorageWrite] = []
        for seq in Int64(1)...7 {
            guard case .applied(_, let writes, _) = room.submit(seq: seq, ops: [set("/n", .number(Double(seq)))], author: alice) else { continue }
            snapshots += writes.filter { if case .snapshot = $0 { true } else { false } }
        }
        #expect(snapshots == [
            .snapshot(room: "lobby", rev: 3, state: Array(#"{"n":3}"#.utf8), keepFrom: 1),
            .snapshot(room: "lobby", rev: 6, state: Array(#"{"n":6}"#.utf8), keepFrom: 3),
        ])
        #expect(room.oldestStoredRev == 3)
    }

    @Test func resumePlans() {
        var room = makeRoom(.init(historyWindow: 5, recentCapacity: 2, snapshotInterval: 1000))
        var events: [PatchEvent] = []
        for seq in Int64(1)...6 {
            if case .applied(let event, _, _) = room.submit(seq: seq, ops: [set("/n", .number(Double(seq)))], author: alice) { events.append(event) }
        }
        #expect(room.plan(resume: nil) == .snapshot)
        #expect(room.plan(resume: ResumePoint(epoch: "other", rev: 6)) == .snapshot)
        #expect(room.plan(resume: ResumePoint(epoch: "e1", rev: 7)) == .snapshot, "a client ahead of the server gets the truth")
        #expect(room.plan(resume: ResumePoint(epoch: "e1", rev: 6)) == .replay([]))
        #expect(room.plan(resume: ResumePoint(epoch: "e1", rev: 4)) == .replay(Array(events[4...])))
        #expect(room.plan(resume: ResumePoint(epoch: "e1", rev: 2)) == .replayFromStorage(after: 2))
        #expect(room.plan(resume: ResumePoint(epoch: "e1", rev: 0)) == .snapshot, "outside the window")
    }

    @Test func restoringReplaysStoredPatchesOntoTheSnapshot() throws {
        var original = makeRoom(.init(historyWindow: 100, recentCapacity: 100, snapshotInterval: 3))
        let store = InMemoryRoomStore()
        try store.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8))])
        for seq in Int64(1)...5 {
            let author = seq.isMultiple(of: 2) ? bob : alice
            if case .applied(_, let writes, _) = original.submit(seq: seq, ops: [set("/n\(seq)", .number(Double(seq)))], author: author) {
                try store.apply(writes)
            }
        }
        let record = try #require(try store.loadRoom("lobby"))
        let restored = try RoomCore.restore(from: record, settings: original.settings)
        #expect(restored.document == original.document)
        #expect(restored.rev == 5)
        #expect(restored.epoch == "e1")
        #expect(restored.lastSeq(of: alice.peer) == 5)
        #expect(restored.lastSeq(of: bob.peer) == 4)
        #expect(restored.plan(resume: ResumePoint(epoch: "e1", rev: 3)) == original.plan(resume: ResumePoint(epoch: "e1", rev: 3)))
    }

    @Test func restoringRefusesCorruptOrGappedHistory() {
        let base = RoomRecord(room: "lobby", epoch: "e1", rev: 0, snapshot: Array("{}".utf8), snapshotRev: 0,
                              patchesAfterSnapshot: [], clients: [:], oldestRev: 1)
        var badSnapshot = base
        badSnapshot.snapshot = Array("[1]".utf8)
        #expect(throws: RoomRestoreError.self) { try RoomCore.restore(from: badSnapshot, settings: .init()) }

        var gap = base
        gap.rev = 2
        gap.patchesAfterSnapshot = [StoredPatch(room: "lobby", rev: 2, user: "u", client: "c", seq: 1, ops: Array("[]".utf8))]
        #expect(throws: RoomRestoreError.gap(room: "lobby", expected: 1, found: 2)) { try RoomCore.restore(from: gap, settings: .init()) }

        var badOps = base
        badOps.rev = 1
        badOps.patchesAfterSnapshot = [StoredPatch(room: "lobby", rev: 1, user: "u", client: "c", seq: 1, ops: Array("{".utf8))]
        #expect(throws: RoomRestoreError.self) { try RoomCore.restore(from: badOps, settings: .init()) }
    }

    @Test func recentHistoryIsARingThatKnowsWhatItHolds() {
        var history = RecentHistory(capacity: 3)
        for rev in Int64(1)...5 { history.append(PatchEvent(rev: rev, user: "u", client: "c", seq: rev, ops: [])) }
        #expect(history.count == 3)
        #expect(history.oldestRev == 3)
        #expect(history.events(after: 2, through: 5)?.map(\.rev) == [3, 4, 5])
        #expect(history.events(after: 4, through: 5)?.map(\.rev) == [5])
        #expect(history.events(after: 1, through: 5) == nil)
        #expect(history.events(after: 5, through: 5) == [])
        #expect(history.revision(author: Peer(user: "u", client: "c"), seq: 4) == 4)
        #expect(history.revision(author: Peer(user: "u", client: "c"), seq: 2) == nil)
        #expect(history.revision(author: Peer(user: "mallory", client: "c"), seq: 4) == nil, "another user's client of the same id")
    }
}
