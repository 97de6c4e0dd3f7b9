import Foundation
import Synchronization

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
        let missing = records.filter { $0.position > applied }
        var batch: [StorageWrite] = []
        for (index, record) in missing.enumerated() {
            batch.append(contentsOf: record.writes)
            if batch.count >= 4096 || index == missing.count - 1 {
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

    /// Waits until the database holds every record appended so far (tests).
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
    ///
    /// The lane hands records over through a `RecordInbox` (no lock: the lane never waits for this
    /// background thread). Readers, which are rare, wait on `condition` for `applied` to catch up; the
    /// database is shared with them under `databaseLock`.
    final class Materializer: @unchecked Sendable {
        private let inbox = RecordInbox()
        private let condition = NSCondition()
        private let databaseLock = NSLock()
        private let segments: JournalSegments
        private let interval: TimeInterval
        private let onFailure: @Sendable (StorageError) -> Void
        /// Guarded by `databaseLock`; nil once stopped (the database is closed).
        private var storage: SQLiteRoomStore?
        /// The last position handed over; written by the lane, read by readers (also on the lane).
        private let appended: Atomic<UInt64>
        private let readersWaiting = Atomic<Int>(0)
        private let stopping = Atomic<Bool>(false)
        // Guarded by `condition`.
        private var applied: UInt64
        private var failure: StorageError?
        private var stopped = false
        private var batchCount = 0
        /// Records waiting beyond this make `enqueue` wait: memory stays bounded if SQLite stalls.
        private let maxPending = 1 << 16

        init(storage: SQLiteRoomStore, applied: UInt64, segments: JournalSegments, interval: Duration,
             onFailure: @escaping @Sendable (StorageError) -> Void) {
            self.storage = storage
            self.appended = Atomic(applied)
            self.applied = applied
            self.segments = segments
            self.interval = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
            self.onFailure = onFailure
            Thread { [self] in run() }.start()
        }

        var batches: Int { condition.withLock { batchCount } }

        /// Hands a journaled record over. Waits only when the materializer is `maxPending` records behind.
        func enqueue(_ record: JournalRecord) {
            while inbox.count >= maxPending && !stopping.load(ordering: .relaxed) {
                inbox.wake()
                condition.lock()
                _ = condition.wait(until: Date(timeIntervalSinceNow: 0.01))
                condition.unlock()
            }
            inbox.push(record)
            appended.store(record.position, ordering: .releasing)
        }

        /// Runs `body` on the database once every record appended so far is applied.
        /// - Throws: the materializer's last failure while it cannot catch up, or `.shutDown`.
        func read<T>(_ body: (SQLiteRoomStore) throws(StorageError) -> T) throws(StorageError) -> T {
            let target = appended.load(ordering: .acquiring)
            readersWaiting.add(1, ordering: .sequentiallyConsistent)
            defer { readersWaiting.subtract(1, ordering: .sequentiallyConsistent) }
            inbox.wake()
            condition.lock()
            while applied < target {
                if let failure {
                    condition.unlock()
                    throw failure
                }
                if stopped {
                    condition.unlock()
                    throw .shutDown
                }
                condition.wait()
            }
            condition.unlock()
            databaseLock.lock()
            defer { databaseLock.unlock() }
            guard let storage else { throw .shutDown }
            return try body(storage)
        }

        /// Applies everything queued, closes the database, and ends the thread; waits for all of it.
        func stop() {
            stopping.store(true, ordering: .sequentiallyConsistent)
            inbox.wake()
            condition.lock()
            while !stopped { condition.wait() }
            condition.unlock()
        }

        private func run() {
            ThreadName.set("tandem-journal")
            var lastApply = DispatchTime.now()
            var retryDelay = 0.05
            // A batch that failed, tried again before anything newer.
            var carried: [JournalRecord] = []
            while true {
                let isStopping = stopping.load(ordering: .sequentiallyConsistent)
                if carried.isEmpty && inbox.count == 0 {
                    if isStopping { break }
                    inbox.wait(until: nil)
                    continue
                }
                // Let records gather for one interval after the last transaction, unless someone waits.
                let due = lastApply + interval
                while readersWaiting.load(ordering: .sequentiallyConsistent) == 0, !stopping.load(ordering: .sequentiallyConsistent),
                      inbox.count < maxPending / 2, DispatchTime.now() < due {
                    inbox.wait(until: due)
                }
                var batch = carried
                batch.append(contentsOf: inbox.takeAll())
                carried = []
                guard let through = batch.last?.position else { continue }
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
                lastApply = DispatchTime.now()
                if let result {
                    onFailure(result)
                    // Nothing is lost: the records stay in the journal and are tried again.
                    carried = batch
                    condition.withLock {
                        failure = result
                        condition.broadcast()
                    }
                    if stopping.load(ordering: .sequentiallyConsistent) { break }
                    inbox.wait(until: .now() + retryDelay)
                    retryDelay = min(retryDelay * 2, 5)
                } else {
                    segments.discard(through: through)
                    retryDelay = 0.05
                    condition.withLock {
                        applied = through
                        failure = nil
                        batchCount += 1
                        condition.broadcast()
                    }
                }
            }
            // Closes the database before `stop()` returns, so the same files can be opened again at once.
            databaseLock.withLock { storage = nil }
            condition.withLock {
                stopped = true
                condition.broadcast()
            }
        }
    }
}
