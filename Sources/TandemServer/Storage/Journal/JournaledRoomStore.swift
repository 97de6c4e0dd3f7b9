import Foundation

/// The durable `RoomStore` of `tandem serve`: a group commit is one append to a journal file, and a
/// background thread (the materializer) folds the journal into a `SQLiteRoomStore` in large batches.
///
/// Why: with SQLite on the commit path every group commit paid a transaction (B-tree pages, two
/// `pwrite`s per WAL page, file locks) on the thread every ack waited for. An append is one `write`,
/// cheap enough to run on the event loop that received the patch, so its ack and fan-out leave in the
/// same loop iteration; SQLite then sees one transaction per `materializeInterval` instead of one per
/// group commit (docs/bench/relays-profile.md).
///
/// Durability is SQLite's at the same setting: `apply` returns after the record is in the journal
/// file (in the OS's page cache, so it survives `kill -9`; with `.full`, after `fdatasync`). Opening
/// the store replays every whole record that SQLite does not hold yet (SQLite stores the last record's
/// position in the transaction that applies it, so none is applied twice), then deletes the segments.
/// A record cut short by a crash was never acknowledged and is ignored.
///
/// Reads (`loadRoom`, `patches`, …) first wait until the materializer has stored everything appended
/// before them, so a read sees every earlier write. Like every `RoomStore`, used by one thread at a
/// time (the commit lane); the materializer is the only other user of the database, under a lock.
public final class JournaledRoomStore: RoomStore {
    private let segments: JournalSegments
    private let materializer: Materializer
    /// Lane-only: every room that exists in storage or in the journal, to refuse writes to unknown rooms
    /// before they are journaled (the materializer must never meet a write it cannot apply).
    private var knownRooms: Set<String>
    /// Lane-only: the position the next record gets.
    private var nextPosition: UInt64
    /// Lane-only: set by `close()`.
    private var closed = false

    /// Opens (creating if needed) the database at `databasePath` and the journal folder `journalFolder`,
    /// and brings the database up to date with the journal.
    /// - Parameters:
    ///   - durability: `.full` also survives power loss: the journal is fdatasynced at every commit.
    ///   - segmentBytes: size at which the journal moves on to a new segment file.
    ///   - materializeInterval: how long the materializer lets records gather before it applies them in one
    ///     transaction (a read that waits for them cuts it short).
    ///   - onMaterializeFailure: called (on the materializer's thread) when applying to SQLite failed; the
    ///     records stay in the journal and are tried again, so nothing is lost.
    /// - Throws: `StorageError` when the files cannot be opened, another process has the journal folder
    ///   open, the journal is damaged before its end, or replaying it fails.
    public init(databasePath: String, journalFolder: String, durability: SQLiteRoomStore.Durability = .processCrash,
                segmentBytes: Int = 8 << 20, materializeInterval: Duration = .milliseconds(20),
                onMaterializeFailure: @escaping @Sendable (StorageError) -> Void = { _ in }) throws(StorageError) {
        segments = JournalSegments(folder: journalFolder, segmentBytes: segmentBytes, syncEachAppend: durability == .full)
        try segments.claimFolder()
        let records = try segments.readAll()
        let storage = try SQLiteRoomStore(path: databasePath, durability: durability)
        var applied = try storage.journalPosition()
        var batch: [StorageWrite] = []
        for record in records where record.position > applied {
            batch.append(contentsOf: record.writes)
            if batch.count >= 4096 || record == records.last {
                try storage.apply(batch, throughJournalRecord: record.position)
                applied = record.position
                batch.removeAll(keepingCapacity: true)
            }
        }
        try segments.removeAll()
        nextPosition = max(applied, records.last?.position ?? 0) + 1
        knownRooms = try storage.roomNames()
        materializer = Materializer(storage: storage, applied: nextPosition - 1, segments: segments,
                                    interval: materializeInterval, onFailure: onMaterializeFailure)
    }

    deinit {
        materializer.stop()
        segments.release()
    }

    /// Stores everything journaled in the database and closes it; later writes fail with `.shutDown`.
    /// Deinitialization does the same; this is for code that must reopen the files at once.
    func close() {
        closed = true
        materializer.stop()
        segments.release()
    }

    /// See `RoomStore.apply(_:)`: checked, appended to the journal as one record, then queued for the
    /// materializer. Returns once the record is in the journal file.
    public func apply(_ writes: [StorageWrite]) throws(StorageError) {
        guard !writes.isEmpty else { return }
        guard !closed else { throw .shutDown }
        var created: Set<String> = []
        for write in writes {
            switch write {
            case .createRoom(let room, _, _): created.insert(room)
            case .appendPatch(let patch): try requireRoom(patch.room, created)
            case .snapshot(let room, _, _, _): try requireRoom(room, created)
            case .saveInvite, .deleteInvite, .saveDenial, .deleteDenial: break
            }
        }
        let record = JournalRecord(position: nextPosition, writes: writes)
        try segments.append(record.encoded(), position: record.position)
        nextPosition += 1
        knownRooms.formUnion(created)
        materializer.enqueue(record)
    }

    private func requireRoom(_ room: String, _ created: Set<String>) throws(StorageError) {
        guard knownRooms.contains(room) || created.contains(room) else { throw .unknownRoom(room) }
    }

    /// See `RoomStore.loadRoom(_:)`.
    public func loadRoom(_ room: String) throws(StorageError) -> RoomRecord? {
        try materializer.read { (storage) throws(StorageError) in try storage.loadRoom(room) }
    }

    /// See `RoomStore.patches(room:after:limit:)`.
    public func patches(room: String, after: Int64, limit: Int) throws(StorageError) -> [StoredPatch] {
        try materializer.read { (storage) throws(StorageError) in try storage.patches(room: room, after: after, limit: limit) }
    }

    /// See `RoomStore.revision(room:client:seq:)`.
    public func revision(room: String, client: String, seq: Int64) throws(StorageError) -> Int64? {
        try materializer.read { (storage) throws(StorageError) in try storage.revision(room: room, client: client, seq: seq) }
    }

    /// See `RoomStore.invites()`.
    public func invites() throws(StorageError) -> [StoredInvite] {
        try materializer.read { (storage) throws(StorageError) in try storage.invites() }
    }

    /// See `RoomStore.denials()`.
    public func denials() throws(StorageError) -> [StoredDenial] {
        try materializer.read { (storage) throws(StorageError) in try storage.denials() }
    }

    /// Waits until the database holds every record appended so far (tests, and `tandem bench storage`).
    func waitUntilMaterialized() throws(StorageError) {
        try materializer.read { _ in }
    }

    /// Segment files the journal has now (tests look).
    var segmentCount: Int { segments.segmentCount }

    /// Transactions the materializer has committed (tests look).
    var materializedBatches: Int { materializer.batches }
}

extension JournaledRoomStore {
    /// The thread that applies journaled records to SQLite, and the state it shares with the lane.
    /// Everything mutable is guarded by `condition`; the database by `databaseLock` (the materializer
    /// applies, readers read).
    final class Materializer: @unchecked Sendable {
        private let condition = NSCondition()
        private let databaseLock = NSLock()
        private let segments: JournalSegments
        private let interval: TimeInterval
        private let onFailure: @Sendable (StorageError) -> Void
        /// Guarded by `databaseLock`; nil once stopped (the database is closed).
        private var storage: SQLiteRoomStore?
        // Guarded by `condition`.
        private var pending: [JournalRecord] = []
        private var appended: UInt64
        private var applied: UInt64
        private var readersWaiting = 0
        private var failure: StorageError?
        private var stopping = false
        private var stopped = false
        private(set) var batchCount = 0
        /// Records waiting beyond this make `enqueue` wait: memory stays bounded if SQLite stalls.
        private let maxPending = 1 << 16

        init(storage: SQLiteRoomStore, applied: UInt64, segments: JournalSegments, interval: Duration,
             onFailure: @escaping @Sendable (StorageError) -> Void) {
            self.storage = storage
            self.appended = applied
            self.applied = applied
            self.segments = segments
            self.interval = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
            self.onFailure = onFailure
            Thread { [self] in run() }.start()
        }

        var batches: Int { condition.withLock { batchCount } }

        /// Queues a journaled record; wakes the thread only when it sleeps for lack of work.
        func enqueue(_ record: JournalRecord) {
            condition.lock()
            while pending.count >= maxPending && !stopping { condition.wait() }
            let wasEmpty = pending.isEmpty
            pending.append(record)
            appended = record.position
            if wasEmpty { condition.broadcast() }
            condition.unlock()
        }

        /// Runs `body` on the database once every record appended so far is applied.
        /// - Throws: the materializer's last failure while it cannot catch up, or `.shutDown`.
        func read<T>(_ body: (SQLiteRoomStore) throws(StorageError) -> T) throws(StorageError) -> T {
            condition.lock()
            let target = appended
            readersWaiting += 1
            condition.broadcast()
            while applied < target {
                if let failure {
                    readersWaiting -= 1
                    condition.unlock()
                    throw failure
                }
                condition.wait()
            }
            readersWaiting -= 1
            condition.unlock()
            databaseLock.lock()
            defer { databaseLock.unlock() }
            guard let storage else { throw .shutDown }
            return try body(storage)
        }

        /// Applies everything queued, closes the database, and ends the thread; waits for all of it.
        func stop() {
            condition.lock()
            stopping = true
            condition.broadcast()
            while !stopped { condition.wait() }
            condition.unlock()
        }

        private func run() {
            BackgroundPriority.enter(name: "tandem-journal")
            var lastApply = Date()
            var retryDelay = 0.05
            condition.lock()
            while true {
                while pending.isEmpty && !stopping { condition.wait() }
                if pending.isEmpty { break }
                // Let records gather for one interval after the last transaction, unless someone waits.
                let due = lastApply.addingTimeInterval(interval)
                while readersWaiting == 0 && !stopping && pending.count < maxPending / 2 && Date() < due {
                    _ = condition.wait(until: due)
                }
                let batch = pending
                pending.removeAll(keepingCapacity: true)
                condition.unlock()

                let through = batch[batch.count - 1].position
                var writes: [StorageWrite] = []
                writes.reserveCapacity(batch.count * 2)
                for record in batch { writes.append(contentsOf: record.writes) }
                let result: StorageError? = databaseLock.withLock {
                    do throws(StorageError) {
                        try storage?.apply(writes, throughJournalRecord: through)
                        return nil
                    } catch {
                        return error
                    }
                }
                lastApply = Date()
                if let result { onFailure(result) } else { segments.discard(through: through) }

                condition.lock()
                if let result {
                    // Nothing is lost: the records stay queued (and in the journal) and are tried again.
                    pending.insert(contentsOf: batch, at: 0)
                    failure = result
                    condition.broadcast()
                    if stopping { break }
                    _ = condition.wait(until: Date().addingTimeInterval(retryDelay))
                    retryDelay = min(retryDelay * 2, 5)
                } else {
                    applied = through
                    failure = nil
                    retryDelay = 0.05
                    batchCount += 1
                    condition.broadcast()
                }
            }
            condition.unlock()
            // Closes the database before `stop()` returns, so the same files can be opened again at once.
            databaseLock.withLock { storage = nil }
            condition.lock()
            stopped = true
            condition.broadcast()
            condition.unlock()
        }
    }
}
