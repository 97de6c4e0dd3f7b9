import Foundation
import TandemProtocol
import Testing
@testable import TandemServer

/// The same contract, checked against every `RoomStore` implementation.
@Suite struct RoomStoreTests {
    enum Kind: String, CaseIterable, Sendable { case memory, sqlite, journaled }

    /// A fresh store of `kind`, and a way to reopen the same storage (a restart).
    private func makeStore(_ kind: Kind) throws -> (store: any RoomStore, reopen: () throws -> any RoomStore, cleanup: () -> Void) {
        switch kind {
        case .memory:
            let store = InMemoryRoomStore()
            return (store, { store }, {})
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-store-\(UUID().uuidString).sqlite").path
            return (try SQLiteRoomStore(path: path), { try SQLiteRoomStore(path: path) }, {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            })
        case .journaled:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-journaled-\(UUID().uuidString)").path
            func open() throws -> JournaledRoomStore {
                try JournaledRoomStore(databasePath: folder + "/tandem.sqlite", journalFolder: folder + "/journal")
            }
            // A restart: the running store stops (storing what it journaled) before the files are opened again.
            var latest = try open()
            return (latest, {
                latest.close()
                latest = try open()
                return latest
            }, { try? FileManager.default.removeItem(atPath: folder) })
        }
    }

    /// Client `client` of user "alice", who writes `patch(_:client:seq:room:user:)` unless told otherwise.
    private func alice(_ client: String) -> Peer { Peer(user: "alice", client: client) }

    private func patch(_ rev: Int64, client: String = "c1", seq: Int64? = nil, room: String = "lobby", user: String = "alice") -> StoredPatch {
        StoredPatch(room: room, rev: rev, user: user, client: client, seq: seq ?? rev, ops: Array(#"[{"op":"set","path":"/n","value":\#(rev)}]"#.utf8))
    }

    @Test(arguments: Kind.allCases) func unknownRoomLoadsAsNil(kind: Kind) throws {
        let (store, _, cleanup) = try makeStore(kind)
        defer { cleanup() }
        #expect(try store.loadRoom("nowhere") == nil)
    }

    @Test(arguments: Kind.allCases) func appendedPatchesAndProgressSurviveAReopen(kind: Kind) throws {
        let (store, reopen, cleanup) = try makeStore(kind)
        defer { cleanup() }
        try store.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8))])
        try store.apply([.appendPatch(patch(1)), .appendPatch(patch(2, client: "c2", seq: 7)), .appendPatch(patch(3))])
        let record = try #require(try reopen().loadRoom("lobby"))
        #expect(record.epoch == "e1")
        #expect(record.rev == 3)
        #expect(record.snapshot == Array("{}".utf8))
        #expect(record.snapshotRev == 0)
        #expect(record.patchesAfterSnapshot == [patch(1), patch(2, client: "c2", seq: 7), patch(3)])
        #expect(record.clients == [alice("c1"): ClientProgress(lastSeq: 3, lastRev: 3), alice("c2"): ClientProgress(lastSeq: 7, lastRev: 2)])
        #expect(record.oldestRev == 1)
    }

    @Test(arguments: Kind.allCases) func snapshotTrimsOldPatchesButKeepsTheWindow(kind: Kind) throws {
        let (store, _, cleanup) = try makeStore(kind)
        defer { cleanup() }
        try store.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8))])
        try store.apply((1...4).map { .appendPatch(patch($0)) } + [.snapshot(room: "lobby", rev: 4, state: Array(#"{"n":4}"#.utf8), keepFrom: 1)])
        try store.apply((5...10).map { .appendPatch(patch($0)) })
        // History goes back to the newest snapshot before keepFrom (rev 4): from there every state rebuilds.
        try store.apply([.snapshot(room: "lobby", rev: 8, state: Array(#"{"n":8}"#.utf8), keepFrom: 6)])
        let record = try #require(try store.loadRoom("lobby"))
        #expect(record.snapshotRev == 8)
        #expect(record.patchesAfterSnapshot.map(\.rev) == [9, 10])
        #expect(record.oldestRev == 5)
        #expect(try store.patches(room: "lobby", after: 0, limit: 100).map(\.rev) == [5, 6, 7, 8, 9, 10])
        #expect(try store.patches(room: "lobby", after: 6, limit: 2).map(\.rev) == [7, 8])
        #expect(try store.snapshot(room: "lobby", atOrBefore: 7) == StoredSnapshot(rev: 4, state: Array(#"{"n":4}"#.utf8)))
        #expect(try store.snapshot(room: "lobby", atOrBefore: 9) == StoredSnapshot(rev: 8, state: Array(#"{"n":8}"#.utf8)))
        #expect(try store.snapshot(room: "lobby", atOrBefore: 3) == nil, "the snapshot at rev 0 went with the history before rev 4")
    }

    @Test(arguments: Kind.allCases) func clientProgressSurvivesTrimmingItsPatchesAndAReopen(kind: Kind) throws {
        let (store, reopen, cleanup) = try makeStore(kind)
        defer { cleanup() }
        try store.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8))])
        try store.apply([.appendPatch(patch(1, client: "a", seq: 1)), .appendPatch(patch(2, client: "b", seq: 9)),
                         .appendPatch(patch(3, client: "a", seq: 2)), .appendPatch(patch(4, client: "c", seq: 5))])
        // Trims revs 1-2: b's only patch goes, a keeps rev 3, c keeps rev 4.
        try store.apply([.snapshot(room: "lobby", rev: 4, state: Array("{}".utf8), keepFrom: 3)])
        try store.apply([.appendPatch(patch(5, client: "a", seq: 3))])
        let expected = [
            alice("a"): ClientProgress(lastSeq: 3, lastRev: 5), alice("b"): ClientProgress(lastSeq: 9, lastRev: 2), alice("c"): ClientProgress(lastSeq: 5, lastRev: 4),
        ]
        #expect(try #require(try reopen().loadRoom("lobby")).clients == expected)
        // Trimming everything keeps every client's progress.
        let reopened = try reopen()
        try reopened.apply([.snapshot(room: "lobby", rev: 5, state: Array("{}".utf8), keepFrom: 6)])
        #expect(try #require(try reopen().loadRoom("lobby")).clients == expected)
    }

    @Test(arguments: Kind.allCases) func patchTimesAndForgottenClientsSurviveAReopen(kind: Kind) throws {
        let (store, reopen, cleanup) = try makeStore(kind)
        defer { cleanup() }
        func timed(_ rev: Int64, _ client: String, _ time: Int64) -> StoredPatch {
            var patch = patch(rev, client: client, seq: 1)
            patch.time = time
            return patch
        }
        try store.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8))])
        try store.apply([.appendPatch(timed(1, "a", 1_000)), .appendPatch(timed(2, "b", 2_000)),
                         .snapshot(room: "lobby", rev: 2, state: Array("{}".utf8), keepFrom: 1), .appendPatch(timed(3, "c", 3_000))])
        // Revs 1 and 2 leave the history (back to the snapshot at rev 2): a's and b's progress move to the
        // clients table with their times.
        try store.apply([.snapshot(room: "lobby", rev: 3, state: Array("{}".utf8), keepFrom: 3)])
        #expect(try #require(try store.loadRoom("lobby")).forgotClients == false)
        try store.apply([.forgetClients(room: "lobby", clients: [alice("a")])])
        let reopened = try reopen()
        let record = try #require(try reopened.loadRoom("lobby"))
        #expect(record.clients == [alice("b"): ClientProgress(lastSeq: 1, lastRev: 2, lastSeen: 2_000), alice("c"): ClientProgress(lastSeq: 1, lastRev: 3, lastSeen: 3_000)])
        #expect(record.forgotClients)
        #expect(try reopened.patches(room: "lobby", after: 2, limit: 10) == [timed(3, "c", 3_000)])
        // A room created anew starts with nothing forgotten.
        try reopened.apply([.createRoom(room: "lobby", epoch: "e2", snapshot: Array("{}".utf8))])
        #expect(try #require(try reopened.loadRoom("lobby")).forgotClients == false)
    }

    @Test func aDatabaseOfAnEarlierVersionGainsTheNewColumnsKeepsItsRoomsAndForgetsUnownedProgress() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-old-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            let old = try SQLiteDatabase(path: path)
            try old.execute("""
                CREATE TABLE rooms (room TEXT PRIMARY KEY, epoch TEXT NOT NULL, rev INTEGER NOT NULL, snapshot BLOB NOT NULL,
                    snapshot_rev INTEGER NOT NULL) WITHOUT ROWID;
                CREATE TABLE patches (room TEXT NOT NULL, rev INTEGER NOT NULL, user TEXT NOT NULL, client TEXT NOT NULL,
                    seq INTEGER NOT NULL, ops BLOB NOT NULL, PRIMARY KEY (room, rev)) WITHOUT ROWID;
                CREATE TABLE clients (room TEXT NOT NULL, client TEXT NOT NULL, last_seq INTEGER NOT NULL, last_rev INTEGER NOT NULL,
                    PRIMARY KEY (room, client)) WITHOUT ROWID;
                INSERT INTO rooms VALUES ('lobby', 'e1', 2, '{}', 0);
                INSERT INTO patches VALUES ('lobby', 2, 'alice', 'a', 4, '[]');
                INSERT INTO clients VALUES ('lobby', 'z', 9, 1);
                """)
        }
        let store = try SQLiteRoomStore(path: path)
        let record = try #require(try store.loadRoom("lobby"))
        // Progress kept per bare client id has no known user: it goes, and the room says it forgot some.
        #expect(record.clients == [alice("a"): ClientProgress(lastSeq: 4, lastRev: 2)], "times unknown: 0; z's row had no user")
        #expect(record.forgotClients)
        try store.apply([.appendPatch(StoredPatch(room: "lobby", rev: 3, user: "alice", client: "a", seq: 5, ops: [], time: 77))])
        let again = try #require(try SQLiteRoomStore(path: path).loadRoom("lobby"))
        #expect(again.clients == [alice("a"): ClientProgress(lastSeq: 5, lastRev: 3, lastSeen: 77)] && again.forgotClients)
    }

    @Test(arguments: Kind.allCases) func twoUsersNamingOneClientIDKeepTheirOwnProgress(kind: Kind) throws {
        let (store, reopen, cleanup) = try makeStore(kind)
        defer { cleanup() }
        try store.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8))])
        try store.apply([.appendPatch(patch(1, client: "ios", seq: 2)), .appendPatch(patch(2, client: "ios", seq: 1_000_000, user: "mallory")),
                         .appendPatch(patch(3, client: "ios", seq: 3))])
        let mallory = Peer(user: "mallory", client: "ios")
        #expect(try #require(try reopen().loadRoom("lobby")).clients
            == [alice("ios"): ClientProgress(lastSeq: 3, lastRev: 3), mallory: ClientProgress(lastSeq: 1_000_000, lastRev: 2)])
        // Trimmed into the progress table, they stay apart.
        try reopen().apply([.snapshot(room: "lobby", rev: 3, state: Array("{}".utf8), keepFrom: 4), .forgetClients(room: "lobby", clients: [mallory])])
        #expect(try #require(try reopen().loadRoom("lobby")).clients == [alice("ios"): ClientProgress(lastSeq: 3, lastRev: 3)])
    }

    @Test(arguments: Kind.allCases) func aDeletedRoomIsGoneWithItsHistoryAndCanStartAnew(kind: Kind) throws {
        let (store, reopen, cleanup) = try makeStore(kind)
        defer { cleanup() }
        try store.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8)), .appendPatch(patch(1, client: "a", seq: 1)),
                         .createRoom(room: "other", epoch: "o1", snapshot: Array("{}".utf8))])
        try store.apply([.appendPatch(patch(2, client: "a", seq: 2)), .deleteRoom(room: "lobby")])
        #expect(try store.loadRoom("lobby") == nil)
        #expect(try store.patches(room: "lobby", after: 0, limit: 10).isEmpty)
        #expect(try store.loadRoom("other") != nil, "other rooms stay")
        // Writes to a deleted room are refused, as to one never stored; deleting what is not there does nothing.
        #expect(throws: StorageError.unknownRoom("lobby")) { try store.apply([.appendPatch(patch(3, client: "a", seq: 3))]) }
        try store.apply([.deleteRoom(room: "nowhere")])
        let reopened = try reopen()
        #expect(try reopened.loadRoom("lobby") == nil, "the delete is durable")
        try reopened.apply([.createRoom(room: "lobby", epoch: "e2", snapshot: Array("{}".utf8)), .appendPatch(patch(1, client: "b", seq: 1))])
        let record = try #require(try reopened.loadRoom("lobby"))
        #expect(record.epoch == "e2" && record.rev == 1 && record.clients.keys.map(\.client) == ["b"], "a new room of the same name starts empty")
    }

    @Test(arguments: Kind.allCases) func historyOlderThanACutoffGoesButNeverTheResumeWindow(kind: Kind) throws {
        let (store, reopen, cleanup) = try makeStore(kind)
        defer { cleanup() }
        func timed(_ rev: Int64) -> StoredPatch {
            var patch = patch(rev)
            patch.time = rev * 1_000
            return patch
        }
        try store.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8))])
        try store.apply((1...10).map { .appendPatch(timed($0)) } + [.snapshot(room: "lobby", rev: 4, state: Array("{}".utf8), keepFrom: 1)]
                        + [.snapshot(room: "lobby", rev: 7, state: Array("{}".utf8), keepFrom: 1)])
        // Patches from rev 6 on are recent: history goes back to the snapshot at rev 4, the newest before 6.
        try store.apply([.expireHistory(room: "lobby", olderThan: 6_000, keepingFrom: 9)])
        #expect(try store.patches(room: "lobby", after: 0, limit: 100).map(\.rev) == Array(5...10))
        #expect(try store.snapshot(room: "lobby", atOrBefore: 5)?.rev == 4)
        // All of it old: the window (from rev 9) still stays, back to the snapshot at rev 7.
        try store.apply([.expireHistory(room: "lobby", olderThan: 99_000, keepingFrom: 9)])
        #expect(try reopen().patches(room: "lobby", after: 0, limit: 100).map(\.rev) == Array(8...10))
        #expect(try reopen().head(of: "lobby") == StoredHead(epoch: "e1", rev: 10, oldestRev: 8))
    }

    @Test(arguments: Kind.allCases) func theHeadOfARoomIsReadWithoutItsHistory(kind: Kind) throws {
        let (store, reopen, cleanup) = try makeStore(kind)
        defer { cleanup() }
        #expect(try store.head(of: "lobby") == nil)
        try store.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8))])
        #expect(try store.head(of: "lobby") == StoredHead(epoch: "e1", rev: 0, oldestRev: 1))
        try store.apply((1...5).map { .appendPatch(patch($0)) } + [.snapshot(room: "lobby", rev: 3, state: Array("{}".utf8), keepFrom: 1)])
        try store.apply([.snapshot(room: "lobby", rev: 5, state: Array("{}".utf8), keepFrom: 5)])
        #expect(try reopen().head(of: "lobby") == StoredHead(epoch: "e1", rev: 5, oldestRev: 4))
    }

    @Test(arguments: Kind.allCases) func aLargeBatchWithASnapshotInTheMiddleAppliesInOrder(kind: Kind) throws {
        let (store, reopen, cleanup) = try makeStore(kind)
        defer { cleanup() }
        try store.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8))])
        // More patches than one multi-row insert holds, not a multiple of it, with a trim between.
        let writes: [StorageWrite] = (1...17).map { .appendPatch(patch($0, client: "c\($0 % 3)")) }
            + [.snapshot(room: "lobby", rev: 17, state: Array(#"{"n":17}"#.utf8), keepFrom: 1)]
            + (18...20).map { .appendPatch(patch($0, client: "c\($0 % 3)")) }
            + [.snapshot(room: "lobby", rev: 20, state: Array(#"{"n":20}"#.utf8), keepFrom: 18)]
            + (21...37).map { .appendPatch(patch($0, client: "c\($0 % 3)")) }
        try store.apply(writes)
        let record = try #require(try reopen().loadRoom("lobby"))
        #expect(record.rev == 37)
        #expect(record.patchesAfterSnapshot.map(\.rev) == Array(21...37))
        #expect(try reopen().patches(room: "lobby", after: 0, limit: 100).map(\.rev) == Array(18...37))
        #expect(record.clients[alice("c0")] == ClientProgress(lastSeq: 36, lastRev: 36))
    }

    @Test(arguments: Kind.allCases) func findsTheRevisionOfAClientsSeq(kind: Kind) throws {
        let (store, _, cleanup) = try makeStore(kind)
        defer { cleanup() }
        try store.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8)),
                         .appendPatch(patch(1, client: "a", seq: 4)), .appendPatch(patch(2, client: "b", seq: 4))])
        #expect(try store.revision(room: "lobby", author: alice("b"), seq: 4) == 2)
        #expect(try store.revision(room: "lobby", author: alice("a"), seq: 5) == nil)
        #expect(try store.revision(room: "lobby", author: Peer(user: "mallory", client: "b"), seq: 4) == nil, "another user's client of the same id")
    }

    @Test(arguments: Kind.allCases) func aFailingBatchChangesNothing(kind: Kind) throws {
        let (store, _, cleanup) = try makeStore(kind)
        defer { cleanup() }
        try store.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8))])
        #expect(throws: StorageError.unknownRoom("ghost")) {
            try store.apply([.appendPatch(patch(1)), .appendPatch(patch(1, room: "ghost"))])
        }
        let record = try #require(try store.loadRoom("lobby"))
        #expect(record.rev == 0)
        #expect(record.patchesAfterSnapshot.isEmpty)
    }

    @Test(arguments: Kind.allCases) func recreatingARoomStartsAFreshHistory(kind: Kind) throws {
        let (store, _, cleanup) = try makeStore(kind)
        defer { cleanup() }
        try store.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8)), .appendPatch(patch(1))])
        try store.apply([.createRoom(room: "lobby", epoch: "e2", snapshot: Array(#"{"x":1}"#.utf8))])
        let record = try #require(try store.loadRoom("lobby"))
        #expect(record.epoch == "e2")
        #expect(record.rev == 0)
        #expect(record.patchesAfterSnapshot.isEmpty)
        #expect(record.clients.isEmpty)
    }

    @Test(arguments: Kind.allCases) func roomsAreIsolated(kind: Kind) throws {
        let (store, _, cleanup) = try makeStore(kind)
        defer { cleanup() }
        try store.apply([.createRoom(room: "a", epoch: "ea", snapshot: Array("{}".utf8)),
                         .createRoom(room: "b", epoch: "eb", snapshot: Array("{}".utf8)),
                         .appendPatch(patch(1, room: "a")), .appendPatch(patch(2, room: "a"))])
        #expect(try store.loadRoom("b")?.rev == 0)
        #expect(try store.patches(room: "b", after: 0, limit: 10).isEmpty)
        #expect(try store.loadRoom("a")?.rev == 2)
    }

    @Test(arguments: Kind.allCases) func invitationsAndDenyEntriesSurviveAReopen(kind: Kind) throws {
        let (store, reopen, cleanup) = try makeStore(kind)
        defer { cleanup() }
        let live = StoredInvite(code: "000123", room: "lobby", role: "guest", createdBy: "alice", createdAt: 10, expiresAt: 70, usesLeft: 2)
        var spent = StoredInvite(code: "999999", room: "attic", role: "viewer", createdBy: "carol", createdAt: 11, expiresAt: 71, usesLeft: 1)
        try store.apply([.saveInvite(live), .saveInvite(spent), .saveDenial(StoredDenial(room: "lobby", user: "bob", until: 99))])
        spent.usesLeft = 0
        spent.revoked = true
        try store.apply([.saveInvite(spent), .saveDenial(StoredDenial(room: "lobby", user: "eve", until: 50)),
                         .deleteDenial(room: "lobby", user: "eve")])
        let reopened = try reopen()
        #expect(try reopened.invites() == [live, spent])
        #expect(try reopened.denials() == [StoredDenial(room: "lobby", user: "bob", until: 99)])
        try reopened.apply([.deleteInvite(code: "000123")])
        #expect(try reopened.invites() == [spent])
    }
}

@Suite struct InviteRulesTests {
    @Test func theThrottleCountsFailuresPerAddressAndGloballyWithinTheWindow() {
        let throttle = AcceptThrottle(limits: .init(perAddress: 2, global: 3, window: 60, maxTrackedAddresses: 10))
        throttle.recordFailure(address: "a", now: 100)
        #expect(throttle.retryAfter(address: "a", now: 100) == nil)
        throttle.recordFailure(address: "a", now: 110)
        #expect(throttle.retryAfter(address: "a", now: 120) == 40)
        #expect(throttle.retryAfter(address: "b", now: 120) == nil)
        throttle.recordFailure(address: "b", now: 130)
        #expect(throttle.retryAfter(address: "b", now: 130) == 30, "b failed within the window: the global limit holds it")
        #expect(throttle.retryAfter(address: "c", now: 130) == nil, "c never failed: an honest guest with a valid code gets through")
        throttle.recordFailure(address: "c", now: 131)
        #expect(throttle.retryAfter(address: "c", now: 131) == 39, "one failure, and c is held as well")
        #expect(throttle.retryAfter(address: "a", now: 161) == 9, "a's own limit is over, the global one not yet")
        #expect(throttle.retryAfter(address: "a", now: 171) == nil)
        #expect(throttle.retryAfter(address: "c", now: 191) == nil)
    }

    @Test func theThrottleRemembersABoundedNumberOfAddresses() {
        let throttle = AcceptThrottle(limits: .init(perAddress: 2, global: 1000, window: 60, maxTrackedAddresses: 2))
        throttle.recordFailure(address: "old", now: 0)
        throttle.recordFailure(address: "a", now: 100)
        throttle.recordFailure(address: "b", now: 100)
        #expect(throttle.trackedAddressCount == 2)
        throttle.recordFailure(address: "c", now: 100)
        #expect(throttle.trackedAddressCount == 2)
    }

    @Test func theBookDecidesEachCodeOnce() throws {
        let book = InviteBook(invites: [], retention: 100)
        let template = StoredInvite(code: "", room: "lobby", role: "guest", createdBy: "alice", createdAt: 0, expiresAt: 10, usesLeft: 1)
        let (invite, _) = try book.reserve(template, maxLivePerRoom: 1, now: 0) { "123456" }
        #expect(invite.code == "123456")
        #expect(throws: InviteBook.ReserveError.tooManyLive(limit: 1)) { try book.reserve(template, maxLivePerRoom: 1, now: 0) { "654321" } }
        #expect(book.accept("123456", now: 1) == .accepted({ var used = invite; used.usesLeft = 0; return used }()))
        #expect(book.accept("123456", now: 2) == .gone(.usedUp))
        #expect(book.accept("000000", now: 2) == .unknown)
        #expect(throws: InviteBook.ReserveError.noFreeCode) { try book.reserve(template, maxLivePerRoom: 5, now: 3) { "123456" } }
        #expect(book.accept("123456", now: 11) == .gone(.expired))
        #expect(book.forgetOld(now: 110) == ["123456"])
        #expect(book.accept("123456", now: 110) == .unknown)
    }

    @Test func denyEntriesKeepTheLaterBoundAndEndOnTime() {
        let list = DenyList([StoredDenial(room: "lobby", user: "bob", until: 50)])
        #expect(list.deny("bob", in: "lobby", until: 40) == 50)
        #expect(list.deniedUntil("bob", in: "lobby", now: 49) == 50)
        #expect(list.deniedUntil("bob", in: "attic", now: 49) == nil)
        #expect(list.deniedUntil("bob", in: "lobby", now: 50) == nil)
        list.deny("eve", in: "lobby", until: 10)
        #expect(list.expire(now: 10) == [StoredDenial(room: "lobby", user: "eve", until: 10)])
    }
}
