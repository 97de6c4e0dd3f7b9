import Foundation
import Synchronization
import TandemProtocol
import Testing
@testable import TandemServer
import TandemSubprocess

/// The journal in front of SQLite: its record format, what a crash leaves behind, and replay.
@Suite struct JournalTests {
    private static func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tandem-journal-\(UUID().uuidString)").path
    }

    /// A store whose materializer waits an hour between transactions: what `apply` writes stays in the journal
    /// only, until a read or `waitUntilMaterialized()` asks for it.
    private static func open(_ folder: String, segmentBytes: Int = 8 << 20) throws -> JournaledRoomStore {
        try JournaledRoomStore(databasePath: folder + "/tandem.sqlite", journalFolder: folder + "/journal",
                               segmentBytes: segmentBytes, materializeInterval: .seconds(3600))
    }

    /// The files as a `kill -9` at this moment would leave them: database, its WAL, and the journal.
    private static func crashImage(of folder: String) throws -> String {
        let image = Self.folder()
        try FileManager.default.createDirectory(atPath: image + "/journal", withIntermediateDirectories: true)
        for name in ["tandem.sqlite", "tandem.sqlite-wal"] where FileManager.default.fileExists(atPath: folder + "/" + name) {
            try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: image + "/" + name)
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: folder + "/journal") {
            try FileManager.default.copyItem(atPath: folder + "/journal/" + name, toPath: image + "/journal/" + name)
        }
        return image
    }

    private static func segmentPaths(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder + "/journal").filter { $0.hasSuffix(".log") }.sorted()
            .map { folder + "/journal/" + $0 }
    }

    /// Client "c1" of user "alice": the author of `patch(_:room:)`.
    private static let alice = Peer(user: "alice", client: "c1")

    private static func patch(_ rev: Int64, room: String = "lobby") -> StoredPatch {
        StoredPatch(room: room, rev: rev, user: "alice", client: "c1", seq: rev, ops: Array(#"[{"op":"set","path":"/n","value":\#(rev)}]"#.utf8))
    }

    /// Applies one patch per rev, each in a record of its own (one group commit each).
    private static func appendPatches(_ revs: ClosedRange<Int>, to store: JournaledRoomStore) throws {
        for rev in revs { try store.apply([.appendPatch(patch(Int64(rev)))]) }
    }

    /// Expects `body` to throw `StorageError.journal` with a message containing `text`.
    private static func expectJournalError(containing text: String, sourceLocation: SourceLocation = #_sourceLocation,
                                           _ body: () throws -> Void) {
        let error = #expect(throws: StorageError.self, sourceLocation: sourceLocation) { try body() }
        guard case .journal(let message)? = error else {
            Issue.record("expected a journal error, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(message.contains(text), sourceLocation: sourceLocation)
    }

    private static let create = StorageWrite.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8))

    @Test func everyKindOfWriteSurvivesTheRecordFormat() {
        let writes: [StorageWrite] = [
            Self.create, .appendPatch(Self.patch(1)), .appendPatch(StoredPatch(room: "ü", rev: -3, user: "", client: "c", seq: Int64.max, ops: [])),
            .snapshot(room: "lobby", rev: 9, state: Array(#"{"a":[1,2]}"#.utf8), keepFrom: 4),
            .saveInvite(StoredInvite(code: "123456", room: "lobby", role: "guest", createdBy: "alice", createdAt: 10, expiresAt: 20,
                                     usesLeft: 3, revoked: true)),
            .deleteInvite(code: "123456"), .saveDenial(StoredDenial(room: "lobby", user: "bob", until: 99)),
            .deleteDenial(room: "lobby", user: "bob"),
            .appendPatch(StoredPatch(room: "lobby", rev: 2, user: "u", client: "c", seq: 1, ops: [], time: 1_733_000_000_123)),
            .forgetClients(room: "lobby", clients: [Peer(user: "u", client: "a"), Peer(user: "", client: ""), Peer(user: "ü", client: "ü")]), .forgetClients(room: "lobby", clients: []),
            .expireHistory(room: "lobby", olderThan: 1_733_000_000_000, keepingFrom: 41), .deleteRoom(room: "lobby"),
        ]
        let record = JournalRecord(position: 42, writes: writes)
        let bytes = record.encoded()
        #expect(JournalRecord.decode(bytes, at: 0) == .record(record, next: bytes.count))
        #expect(JournalRecord.decode(bytes, at: bytes.count) == .end)
    }

    @Test("a forget of bare client ids (journals of releases before progress belonged to a user's client) reads as the room having forgotten, naming no author")
    func aForgetOfBareClientIDsReadsAsForgettingNoAuthor() throws {
        var payload: [UInt8] = []
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { payload += $0 } }
        func put(_ text: String) { put(UInt32(text.utf8.count)); payload += Array(text.utf8) }
        put(UInt64(8)); put(UInt32(1))
        payload.append(9)
        put("lobby"); put(UInt32(2)); put("a"); put("ü")
        var bytes: [UInt8] = []
        withUnsafeBytes(of: UInt32(payload.count - 8).littleEndian) { bytes += $0 }
        withUnsafeBytes(of: CRC32.checksum(payload[...]).littleEndian) { bytes += $0 }
        bytes += payload
        let expected = JournalRecord(position: 8, writes: [.forgetClients(room: "lobby", clients: [])])
        #expect(JournalRecord.decode(bytes, at: 0) == .record(expected, next: bytes.count))
    }

    @Test func aPatchJournaledBeforeTimesWereKeptReadsWithTimeZero() throws {
        // The earlier layout: tag 2, then room, rev, user, client, seq, ops — no time.
        var payload: [UInt8] = []
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { payload += $0 } }
        func put(_ text: String) { put(UInt32(text.utf8.count)); payload += Array(text.utf8) }
        put(UInt64(7)); put(UInt32(1))
        payload.append(2)
        put("lobby"); put(Int64(3)); put("alice"); put("c1"); put(Int64(2)); put("[]")
        var bytes: [UInt8] = []
        withUnsafeBytes(of: UInt32(payload.count - 8).littleEndian) { bytes += $0 }
        withUnsafeBytes(of: CRC32.checksum(payload[...]).littleEndian) { bytes += $0 }
        bytes += payload
        let expected = JournalRecord(position: 7, writes: [.appendPatch(StoredPatch(room: "lobby", rev: 3, user: "alice", client: "c1", seq: 2, ops: Array("[]".utf8)))])
        #expect(JournalRecord.decode(bytes, at: 0) == .record(expected, next: bytes.count))
    }

    @Test func aRecordCutAnywhereOrChangedInAnyByteIsTorn() {
        let bytes = JournalRecord(position: 1, writes: [Self.create, .appendPatch(Self.patch(1))]).encoded()
        for length in 1..<bytes.count {
            #expect(JournalRecord.decode(Array(bytes.prefix(length)), at: 0) == .torn, "cut at \(length)")
        }
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= 0x40
            #expect(JournalRecord.decode(damaged, at: 0) == .torn, "byte \(index) changed")
        }
    }

    @Test func writesThatOnlyReachedTheJournalAreThereAfterACrash() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.open(folder)
        try store.apply([Self.create])
        try Self.appendPatches(1...50, to: store)
        // Nothing was materialized: the database alone would not have the room.
        #expect(store.materializedBatches == 0)
        let image = try Self.crashImage(of: folder)
        defer { try? FileManager.default.removeItem(atPath: image) }

        let recovered = try Self.open(image)
        let record = try #require(try recovered.loadRoom("lobby"))
        #expect(record.rev == 50)
        #expect(record.patchesAfterSnapshot == (1...50).map { Self.patch(Int64($0)) })
        // Replayed into the database and the old segments deleted: the next open finds the same, with no journal.
        recovered.close()
        #expect(try Self.segmentPaths(image).count <= 1)
        let again = try Self.open(image)
        #expect(try again.loadRoom("lobby")?.rev == 50)
    }

    @Test func recordsTheDatabaseAlreadyHoldsAreNotAppliedTwice() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.open(folder)
        try store.apply([Self.create, .appendPatch(Self.patch(1))])
        try store.waitUntilMaterialized()
        try store.apply([.appendPatch(Self.patch(2))])
        // The segment still holds record 1, which the database has too (a crash before the segment went).
        let image = try Self.crashImage(of: folder)
        defer { try? FileManager.default.removeItem(atPath: image) }

        let recovered = try Self.open(image)
        let record = try #require(try recovered.loadRoom("lobby"))
        #expect(record.patchesAfterSnapshot.map(\.rev) == [1, 2])
    }

    @Test func aRecordCutShortByTheCrashIsIgnoredAndWritingGoesOn() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.open(folder)
        try store.apply([Self.create])
        try store.apply([.appendPatch(Self.patch(1))])
        let image = try Self.crashImage(of: folder)
        defer { try? FileManager.default.removeItem(atPath: image) }
        // Half of a third record, as a kill during its `write` leaves it.
        let half = Array(JournalRecord(position: 3, writes: [.appendPatch(Self.patch(2))]).encoded().prefix(20))
        let last = try #require(try Self.segmentPaths(image).last)
        let handle = try #require(FileHandle(forWritingAtPath: last))
        handle.seekToEndOfFile()
        handle.write(Data(half))
        try handle.close()

        let recovered = try Self.open(image)
        #expect(try recovered.loadRoom("lobby")?.rev == 1)
        try recovered.apply([.appendPatch(Self.patch(2))])
        recovered.close()
        #expect(try Self.open(image).loadRoom("lobby")?.rev == 2)
    }

    @Test func damageBeforeTheEndOfTheJournalRefusesToOpen() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Tiny segments: every record starts a new file.
        let store = try Self.open(folder, segmentBytes: 1)
        try store.apply([Self.create])
        try store.apply([.appendPatch(Self.patch(1))])
        try store.apply([.appendPatch(Self.patch(2))])
        let image = try Self.crashImage(of: folder)
        defer { try? FileManager.default.removeItem(atPath: image) }
        let segments = try Self.segmentPaths(image)
        #expect(segments.count == 3)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: segments[1])))
        bytes[bytes.count - 1] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: segments[1]))

        Self.expectJournalError(containing: "damaged") { _ = try Self.open(image) }
    }

    @Test func segmentsGoOnceTheDatabaseHoldsThem() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.open(folder, segmentBytes: 512)
        try store.apply([Self.create])
        try Self.appendPatches(1...200, to: store)
        #expect(store.segmentCount > 20)
        try store.waitUntilMaterialized()
        // Only the segment being written remains.
        #expect(store.segmentCount == 1)
        #expect(try Self.segmentPaths(folder).count == 1)
        store.close()
        #expect(try Self.open(folder).loadRoom("lobby")?.rev == 200)
    }

    @Test func writesThatGatheredAreStoredInOneTransaction() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.open(folder)
        try store.apply([Self.create])
        try Self.appendPatches(1...100, to: store)
        try store.waitUntilMaterialized()
        #expect(store.materializedBatches == 1)
        #expect(try store.patches(room: "lobby", after: 98, limit: 10).map(\.rev) == [99, 100])
    }

    @Test("--durability full presses every commit's record to disk before the commit returns; the default does not",
          arguments: [(SQLiteRoomStore.Durability.full, 3), (.processCrash, 0)])
    func fullDurabilitySyncsEachCommit(durability: SQLiteRoomStore.Durability, syncs: Int) throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let calls = Atomic<Int>(0)
        let store = try JournaledRoomStore(databasePath: folder + "/tandem.sqlite", journalFolder: folder + "/journal", durability: durability,
                                           segmentBytes: 8 << 20, materializeInterval: .seconds(3600), onMaterializeFailure: { _ in },
                                           maxWritesPerTransaction: 1024, maxPending: 1 << 16, runsMaterializer: false,
                                           synchronize: { descriptor in calls.add(1, ordering: .relaxed); return fdatasync(descriptor) })
        try store.apply([Self.create])
        try store.apply([.appendPatch(Self.patch(1))])
        try store.apply([.appendPatch(Self.patch(2))])
        #expect(calls.load(ordering: .relaxed) == syncs)
        store.close()
    }

    /// A store whose materializer thread never runs: only reads, the lane and `close()` store records.
    private static func openWithoutMaterializer(_ folder: String, maxWritesPerTransaction: Int = 1024, maxPending: Int = 1 << 16) throws -> JournaledRoomStore {
        try JournaledRoomStore(databasePath: folder + "/tandem.sqlite", journalFolder: folder + "/journal", durability: .processCrash,
                               segmentBytes: 8 << 20, materializeInterval: .seconds(3600), onMaterializeFailure: { _ in },
                               maxWritesPerTransaction: maxWritesPerTransaction, maxPending: maxPending, runsMaterializer: false)
    }

    @Test func readsAnswerFromASnapshotAndTheUnstoredRecordsWhileTheMaterializerHoldsTheDatabase() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.openWithoutMaterializer(folder)
        let hall = StorageWrite.createRoom(room: "hall", epoch: "e2", snapshot: Array(#"{"a":1}"#.utf8))
        try store.apply([Self.create, hall, .saveInvite(StoredInvite(code: "i1", room: "lobby", role: "editor", createdBy: "alice",
                                                                       createdAt: 1, expiresAt: 2, usesLeft: 3, revoked: false))])
        try Self.appendPatches(1...10, to: store)
        try store.waitUntilMaterialized()
        // The materializer is mid-transaction (and may get no CPU for a while): reads must not wait for it.
        let hold = store.holdDatabaseLock()
        try Self.appendPatches(11...20, to: store)
        try store.apply([.appendPatch(Self.patch(1, room: "hall"))])
        #expect(try store.patches(room: "lobby", after: 5, limit: 100).map(\.rev) == Array(6...20))
        #expect(try store.patches(room: "lobby", after: 5, limit: 8).map(\.rev) == Array(6...13))
        #expect(try store.patches(room: "lobby", after: 12, limit: 3).map(\.rev) == [13, 14, 15])
        #expect(try store.patches(room: "lobby", after: 20, limit: 3).isEmpty)
        #expect(try store.revision(room: "lobby", author: Self.alice, seq: 17) == 17)
        #expect(try store.revision(room: "lobby", author: Self.alice, seq: 3) == 3)
        #expect(try store.revision(room: "lobby", author: Self.alice, seq: 21) == nil)
        #expect(try store.revision(room: "lobby", author: Peer(user: "mallory", client: "c1"), seq: 17) == nil, "another user's client of the same id")
        #expect(try store.revision(room: "hall", author: Self.alice, seq: 1) == 1)
        #expect(try store.loadRoom("nowhere") == nil)
        #expect(try store.invites().map(\.code) == ["i1"])
        #expect(try store.denials().isEmpty)
        #expect(store.fallbackReads == 0)
        hold.release()
        // Only the transaction before the lock was taken: no read stored anything.
        #expect(store.materializedBatches == 1)
    }

    @Test func aReadTheUnstoredRecordsCannotAnswerStoresThemFirst() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.openWithoutMaterializer(folder)
        try store.apply([Self.create])
        try Self.appendPatches(1...10, to: store)
        // The room's own unstored records: loading it stores them (a room is rarely loaded while it writes).
        #expect(try store.loadRoom("lobby")?.rev == 10)
        #expect(store.fallbackReads == 1)
        #expect(store.materializedBatches == 1)
        // A snapshot not stored yet trims the history (back to the snapshot at rev 7, the newest before
        // keepFrom): the database must apply it before answering.
        try store.apply([.snapshot(room: "lobby", rev: 7, state: Array(#"{"n":7}"#.utf8), keepFrom: 1),
                         .snapshot(room: "lobby", rev: 10, state: Array(#"{"n":10}"#.utf8), keepFrom: 8)])
        #expect(try store.patches(room: "lobby", after: 0, limit: 100).map(\.rev) == [8, 9, 10])
        #expect(store.fallbackReads == 2)
        // So does a room created anew: its old history is gone.
        try store.apply([.createRoom(room: "lobby", epoch: "e9", snapshot: Array("{}".utf8)), .appendPatch(Self.patch(1))])
        #expect(try store.revision(room: "lobby", author: Self.alice, seq: 9) == nil)
        #expect(try store.revision(room: "lobby", author: Self.alice, seq: 1) == 1)
        #expect(store.fallbackReads == 3)
        // Invites and denials not stored yet, likewise.
        try store.apply([.saveDenial(StoredDenial(room: "lobby", user: "mallory", until: 99))])
        #expect(try store.denials().map(\.user) == ["mallory"])
        #expect(store.fallbackReads == 4)
    }

    @Test func whileTheMaterializerHoldsTheDatabaseTheLaneJournalsOnAndWaitsOnlyAtFourTimesTheLimit() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        nonisolated(unsafe) let store = try Self.openWithoutMaterializer(folder, maxPending: 4)
        try store.apply([Self.create])
        try store.waitUntilMaterialized()
        let hold = store.holdDatabaseLock()
        // Past the limit the lane does not wait for the lock: it journals on.
        try Self.appendPatches(1...16, to: store)
        #expect(store.backlog == 16)
        // At four times the limit it waits for the materializer to let go of the database.
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: (any Error)?
        Thread {
            do { try store.apply([.appendPatch(Self.patch(17))]) } catch { failure = error }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + .milliseconds(200)) == .timedOut)
        hold.release()
        #expect(done.wait(timeout: .now() + .seconds(10)) == .success)
        #expect(failure == nil)
        #expect(store.backlog < 17)
        #expect(try store.patches(room: "lobby", after: 0, limit: 100).map(\.rev) == Array(1...17))
    }

    @Test func aLongBacklogIsStoredInTransactionsOfBoundedSize() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.openWithoutMaterializer(folder, maxWritesPerTransaction: 10)
        try store.apply([Self.create])
        try Self.appendPatches(1...99, to: store)
        // A record of 12 writes exceeds the bound alone: it still goes in (alone), never split.
        try store.apply((100...111).map { .appendPatch(Self.patch(Int64($0))) })
        #expect(try store.loadRoom("lobby")?.rev == 111)
        // 100 one-write records in tens, then the twelve-write record.
        #expect(store.materializedBatches == 11)
    }

    @Test func theLaneStoresAFullBacklogBeforeItJournalsMore() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.openWithoutMaterializer(folder, maxPending: 8)
        try store.apply([Self.create])
        for rev in 1...20 {
            try store.apply([.appendPatch(Self.patch(Int64(rev)))])
            #expect(store.backlog <= 8)
        }
        #expect(store.materializedBatches == 2)
        // What the lane stored is in the database alone, without the journal.
        store.close()
        let database = try SQLiteRoomStore(path: folder + "/tandem.sqlite")
        #expect(try database.loadRoom("lobby")?.rev == 20)
    }

    @Test func theLaneStoresOneChunkPerWriteNotTheWholeBacklog() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.openWithoutMaterializer(folder, maxWritesPerTransaction: 2, maxPending: 8)
        try store.apply([Self.create])
        for rev in 1...40 {
            try store.apply([.appendPatch(Self.patch(Int64(rev)))])
            #expect(store.backlog <= 8)
        }
        // Two records per chunk: the backlog stays near the limit instead of dropping to nothing.
        #expect(store.backlog >= 6)
        #expect(try store.loadRoom("lobby")?.rev == 40)
    }

    @Test func whileTheDatabaseFailsNothingIsLostAndAFullBacklogRefusesMoreWrites() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.openWithoutMaterializer(folder, maxPending: 4)
        try store.apply([Self.create])
        try store.waitUntilMaterialized()
        // Another connection takes the patches table away: every transaction that stores a patch fails.
        let saboteur = try SQLiteDatabase(path: folder + "/tandem.sqlite")
        try saboteur.execute("ALTER TABLE patches RENAME TO patches_away")
        try Self.appendPatches(1...4, to: store)
        #expect(throws: StorageError.self) { try store.loadRoom("lobby") }
        // The backlog is full and cannot be stored: the next write is refused, not journaled.
        #expect(throws: StorageError.self) { try store.apply([.appendPatch(Self.patch(5))]) }
        #expect(store.backlog == 4)
        try saboteur.execute("ALTER TABLE patches_away RENAME TO patches")
        try store.apply([.appendPatch(Self.patch(5))])
        #expect(try store.loadRoom("lobby")?.patchesAfterSnapshot.map(\.rev) == [1, 2, 3, 4, 5])
    }

    @Test func aBusyMaterializerAndTheLaneStoreEveryRecordOnce() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // No gathering: the materializer takes records while the lane is still handing them over.
        let store = try JournaledRoomStore(databasePath: folder + "/tandem.sqlite", journalFolder: folder + "/journal",
                                           durability: .processCrash, segmentBytes: 1 << 16, materializeInterval: .zero,
                                           onMaterializeFailure: { _ in }, maxWritesPerTransaction: 64, maxPending: 256,
                                           runsMaterializer: true)
        try store.apply([Self.create])
        var mostWaiting = 0
        for rev in 1...20_000 {
            try store.apply([.appendPatch(Self.patch(Int64(rev)))])
            mostWaiting = max(mostWaiting, store.backlog)
        }
        // The lane stores what the materializer leaves, and waits for it only at four times the limit.
        #expect(mostWaiting <= 4 * 256)
        let record = try #require(try store.loadRoom("lobby"))
        #expect(record.rev == 20_000)
        #expect(record.patchesAfterSnapshot.map(\.rev) == Array(1...20_000))
    }

    @Test func theMaterializerYieldsItsCoreWhileItStores() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Yielding at every yield point, so that any transaction yields.
        let store = try JournaledRoomStore(databasePath: folder + "/tandem.sqlite", journalFolder: folder + "/journal",
                                           durability: .processCrash, segmentBytes: 8 << 20, materializeInterval: .zero,
                                           onMaterializeFailure: { _ in }, maxWritesPerTransaction: 1024, maxPending: 1 << 16,
                                           runsMaterializer: true, yieldInterval: .zero)
        defer { store.close() }
        try store.apply([Self.create])
        try Self.appendPatches(1...200, to: store)
        // Nothing here reads, so the materializer's thread stores every record. It runs at `SCHED_IDLE`: in a busy
        // test run it may wait long for a core, so the deadline is generous (the loop ends as soon as it yielded).
        let deadline = ContinuousClock.now + .seconds(60)
        while store.materializerYields == 0, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        #expect(store.materializerYields > 0)
        #expect(store.materializedBatches > 0)
    }

    @Test func aSegmentACrashCaughtMidDeletionIsRemovedAtOpenAndIgnored() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            let store = try Self.open(folder)
            try store.apply([Self.create])
            try Self.appendPatches(1...3, to: store)
            store.close()
        }
        // What a crash leaves of a segment being deleted: renamed away, shortened mid-record.
        let leftover = folder + "/journal/00000000000000000001.log" + JournalSegments.discardedSuffix
        let torn = Array(JournalRecord(position: 1, writes: [Self.create, .appendPatch(Self.patch(1))]).encoded().prefix(25))
        #expect(FileManager.default.createFile(atPath: leftover, contents: Data(torn)))
        let reopened = try Self.open(folder)
        defer { reopened.close() }
        #expect(try reopened.loadRoom("lobby")?.rev == 3)
        #expect(!FileManager.default.fileExists(atPath: leftover))
    }

    @Test func aWriteToAnUnknownRoomIsRefusedBeforeItIsJournaled() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.open(folder)
        #expect(throws: StorageError.unknownRoom("lobby")) { try store.apply([.appendPatch(Self.patch(1))]) }
        #expect(store.segmentCount == 0)
        // Rooms stored before this open are known too.
        try store.apply([Self.create])
        store.close()
        let reopened = try Self.open(folder)
        try reopened.apply([.appendPatch(Self.patch(1))])
        #expect(try reopened.loadRoom("lobby")?.rev == 1)
    }

    @Test func aSecondStoreCannotOpenAJournalInUseUntilTheFirstCloses() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try Self.open(folder)
        try first.apply([Self.create])
        Self.expectJournalError(containing: "in use by another Tandem server") { _ = try Self.open(folder) }
        // The refused open deleted nothing: the first store's writes are all there once it is done.
        try first.apply([.appendPatch(Self.patch(1))])
        first.close()
        #expect(try Self.open(folder).loadRoom("lobby")?.rev == 1)
    }

    @Test func aLockHeldForAnInstantByAnotherProcessIsWaitedFor() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/journal", withIntermediateDirectories: true)
        // As a child being started holds a copy of the descriptor of a lock just released.
        let holder = try ChildProcess(executable: "/usr/bin/flock", arguments: ["-x", folder + "/journal/LOCK", "-c", "echo held; sleep 0.1"],
                                      standardOutput: .pipe)
        #expect(String(decoding: holder.standardOutput?.availableData ?? Data(), as: UTF8.self) == "held\n")
        let store = try Self.open(folder)
        try store.apply([Self.create])
        store.close()
        holder.waitUntilExit()
    }

    @Test func afterCloseWritesFailAndNothingIsLost() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.open(folder)
        try store.apply([Self.create, .appendPatch(Self.patch(1))])
        store.close()
        #expect(throws: StorageError.shutDown) { try store.apply([.appendPatch(Self.patch(2))]) }
        #expect(throws: StorageError.shutDown) { try store.loadRoom("lobby") }
        // `close` stored the journaled writes: the database alone has them.
        let database = try SQLiteRoomStore(path: folder + "/tandem.sqlite")
        #expect(try database.loadRoom("lobby")?.rev == 1)
    }

    #if os(Linux)
    /// The nice value (field 19) and scheduling policy (field 41) of this process's thread named `name`, from
    /// `/proc/self/task/*/stat`, if one runs.
    private static func niceOfThread(named name: String) throws -> (nice: Int, policy: Int)? {
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") {
            guard let comm = procFile("/proc/self/task/\(task)/comm"), comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                  let stat = procFile("/proc/self/task/\(task)/stat"),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard let nice = Int(fields[16]), let policy = Int(fields[38]) else { return nil }
            return (nice, policy)
        }
        return nil
    }

    /// A /proc file's text (they report size 0, so it is read to its end rather than by size).
    private static func procFile(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    }

    @Test func theMaterializerRunsAtTheLowestPriorityAndTheCheckpointerAtTheNormalOne() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Self.open(folder)
        defer { store.close() }
        // The threads name themselves as they start (the materializer after lowering its priority).
        func niceOnceRunning(_ name: String) throws -> (nice: Int, policy: Int)? {
            let deadline = Date().addingTimeInterval(10)
            var nice = try Self.niceOfThread(named: name)
            while nice == nil, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.01)
                nice = try Self.niceOfThread(named: name)
            }
            return nice
        }
        // In normal operation nobody waits for the materializer: `SCHED_IDLE` (policy 5; nice 19 in case that were
        // refused). The WAL rewind waits for the checkpointer's lock, so the checkpointer keeps the normal
        // priority and policy (`SCHED_OTHER`, 0).
        let materializer = try niceOnceRunning("tandem-journal")
        #expect(materializer?.nice == 19 && materializer?.policy == 5)
        let checkpointer = try niceOnceRunning("tandem-wal-ckpt")
        #expect(checkpointer?.nice == 0 && checkpointer?.policy == 0)
    }
    #endif
}
