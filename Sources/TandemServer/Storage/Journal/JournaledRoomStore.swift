import TandemProtocol

import Foundation
import TandemSynchronization

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
/// Reads (`loadRoom`, `patches`, …) see every earlier write without waiting for the materializer (a thread
/// that runs only on CPU time nobody else wants, perhaps preempted mid-transaction): they read a snapshot through a second connection (in WAL mode a reader
/// never waits for the writer) and add what the lane journaled after it (`UnstoredWrites`). In the rare
/// case that cannot answer (a room recreated or snapshotted in a record not yet stored), a read stores
/// what waits itself first, under the database lock. Like every `RoomStore`, used by one thread at a time
/// (the commit lane); the materializer is the only other writer of the database, under that lock.
public final class JournaledRoomStore: RoomStore {
    private let segments: JournalSegments
    private let materializer: Materializer
    /// Lane-only: the read-only connection of snapshot reads; nil once closed.
    private var reader: SQLiteRoomStore?
    /// Lane-only: what the lane journaled that the database may not hold yet.
    private var unstored = UnstoredWrites()
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
    ///     transaction (a read stores what waits at once).
    ///   - onMaterializeFailure: called (on the materializer's thread) when applying to SQLite failed; the
    ///     records stay in the journal and are tried again, so nothing is lost.
    /// - Throws: `StorageError` when the files cannot be opened, another process has the journal folder
    ///   open, the journal is damaged before its end, or replaying it fails.
    public convenience init(databasePath: String, journalFolder: String, durability: SQLiteRoomStore.Durability = .processCrash,
                            segmentBytes: Int = 8 << 20, materializeInterval: Duration = .milliseconds(20),
                            onMaterializeFailure: @escaping @Sendable (StorageError) -> Void = { _ in }) throws(StorageError) {
        try self.init(databasePath: databasePath, journalFolder: journalFolder, durability: durability, segmentBytes: segmentBytes,
                      materializeInterval: materializeInterval, onMaterializeFailure: onMaterializeFailure,
                      maxWritesPerTransaction: 1024, maxPending: 1 << 16, runsMaterializer: true)
    }

    /// The store with the materializer's limits set (tests make them small): `maxWritesPerTransaction` per
    /// SQLite transaction, `maxPending` records waiting before the lane stores them itself, and whether the
    /// materializer's thread runs at all (without it, only reads, the lane and `close()` store records), and how
    /// long that thread works before it yields its core (`SQLiteYieldPoints`). `synchronize` presses each
    /// appended record to disk under `.full` (`fdatasync`; tests count the calls).
    init(databasePath: String, journalFolder: String, durability: SQLiteRoomStore.Durability, segmentBytes: Int,
         materializeInterval: Duration, onMaterializeFailure: @escaping @Sendable (StorageError) -> Void,
         maxWritesPerTransaction: Int, maxPending: Int, runsMaterializer: Bool,
         yieldInterval: Duration = SQLiteYieldPoints.interval,
         synchronize: @escaping @Sendable (Int32) -> Int32 = { fdatasync($0) }) throws(StorageError) {
        segments = JournalSegments(folder: journalFolder, segmentBytes: segmentBytes, syncEachAppend: durability == .full,
                                   synchronize: synchronize)
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
        reader = try SQLiteRoomStore.reader(path: databasePath)
        materializer = Materializer(storage: storage, applied: nextPosition - 1, segments: segments, interval: materializeInterval,
                                    maxWritesPerTransaction: maxWritesPerTransaction, maxPending: maxPending,
                                    runsThread: runsMaterializer, yieldInterval: yieldInterval, onFailure: onMaterializeFailure)
    }

    deinit {
        // The reader first, so the writer's connection is the last one and removes the WAL as it closes.
        reader = nil
        materializer.stop()
        segments.release()
    }

    /// Stores everything journaled in the database and closes it; later writes fail with `.shutDown`.
    /// Deinitialization does the same; this is for code that must reopen the files at once.
    func close() {
        closed = true
        reader = nil
        materializer.stop()
        segments.release()
    }

    /// See `RoomStore.apply(_:)`: checked, appended to the journal as one record, then queued for the
    /// materializer. Returns once the record is in the journal file.
    public func apply(_ writes: [StorageWrite]) throws(StorageError) {
        guard !writes.isEmpty else { return }
        guard !closed else { throw .shutDown }
        var created: Set<String> = []
        var deleted: Set<String> = []
        for write in writes {
            switch write {
            case .createRoom(let room, _, _):
                created.insert(room)
                deleted.remove(room)
            case .appendPatch(let patch): try requireRoom(patch.room, created, deleted)
            case .snapshot(let room, _, _, _), .forgetClients(let room, _), .expireHistory(let room, _, _): try requireRoom(room, created, deleted)
            case .saveInvite, .deleteInvite, .saveDenial, .deleteDenial: break
            case .deleteRoom(let room):
                created.remove(room)
                deleted.insert(room)
            }
        }
        try materializer.storeBacklogIfFull()
        let record = JournalRecord(position: nextPosition, writes: writes)
        try segments.append(record.encoded(), position: record.position)
        nextPosition += 1
        knownRooms.subtract(deleted)
        knownRooms.formUnion(created)
        unstored.forget(through: materializer.storedThrough)
        unstored.append(record)
        materializer.enqueue(record)
    }

    private func requireRoom(_ room: String, _ created: Set<String>, _ deleted: Set<String>) throws(StorageError) {
        guard created.contains(room) || knownRooms.contains(room) && !deleted.contains(room) else { throw .unknownRoom(room) }
    }

    /// See `RoomStore.loadRoom(_:)`.
    public func loadRoom(_ room: String) throws(StorageError) -> RoomRecord? {
        let answer: RoomRecord?? = try readSnapshot { (storage, position) throws(StorageError) in
            unstored.touchesRoom(room, after: position) ? nil : .some(try storage.loadRoom(room))
        }
        if let answer { return answer }
        return try materializer.read { (storage) throws(StorageError) in try storage.loadRoom(room) }
    }

    /// See `RoomStore.patches(room:after:limit:)`.
    public func patches(room: String, after: Int64, limit: Int) throws(StorageError) -> [StoredPatch] {
        let answer: [StoredPatch]? = try readSnapshot { (storage, position) throws(StorageError) in
            guard !unstored.reshapes(room, after: position) else { return nil }
            let stored = try storage.patches(room: room, after: after, limit: limit)
            return unstored.patches(of: room, after: after, limit: limit, stored: stored, position: position)
        }
        if let answer { return answer }
        return try materializer.read { (storage) throws(StorageError) in try storage.patches(room: room, after: after, limit: limit) }
    }

    /// See `RoomStore.head(of:)`.
    public func head(of room: String) throws(StorageError) -> StoredHead? {
        let answer: StoredHead?? = try readSnapshot { (storage, position) throws(StorageError) in
            unstored.touchesRoom(room, after: position) ? nil : .some(try storage.head(of: room))
        }
        if let answer { return answer }
        return try materializer.read { (storage) throws(StorageError) in try storage.head(of: room) }
    }

    /// See `RoomStore.snapshot(room:atOrBefore:)`.
    public func snapshot(room: String, atOrBefore rev: Int64) throws(StorageError) -> StoredSnapshot? {
        let answer: StoredSnapshot?? = try readSnapshot { (storage, position) throws(StorageError) in
            unstored.reshapes(room, after: position) ? nil : .some(try storage.snapshot(room: room, atOrBefore: rev))
        }
        if let answer { return answer }
        return try materializer.read { (storage) throws(StorageError) in try storage.snapshot(room: room, atOrBefore: rev) }
    }

    /// See `RoomStore.revision(room:author:seq:)`.
    public func revision(room: String, author: Peer, seq: Int64) throws(StorageError) -> Int64? {
        let answer: Int64?? = try readSnapshot { (storage, position) throws(StorageError) in
            guard !unstored.reshapes(room, after: position) else { return nil }
            if let rev = unstored.revision(room: room, author: author, seq: seq, after: position) { return .some(rev) }
            return .some(try storage.revision(room: room, author: author, seq: seq))
        }
        if let answer { return answer }
        return try materializer.read { (storage) throws(StorageError) in try storage.revision(room: room, author: author, seq: seq) }
    }

    /// See `RoomStore.invites()`.
    public func invites() throws(StorageError) -> [StoredInvite] {
        let answer: [StoredInvite]? = try readSnapshot { (storage, position) throws(StorageError) in
            unstored.touchesInvites(after: position) ? nil : try storage.invites()
        }
        if let answer { return answer }
        return try materializer.read { (storage) throws(StorageError) in try storage.invites() }
    }

    /// See `RoomStore.denials()`.
    public func denials() throws(StorageError) -> [StoredDenial] {
        let answer: [StoredDenial]? = try readSnapshot { (storage, position) throws(StorageError) in
            unstored.touchesDenials(after: position) ? nil : try storage.denials()
        }
        if let answer { return answer }
        return try materializer.read { (storage) throws(StorageError) in try storage.denials() }
    }

    /// Runs `body` on a snapshot of the database (the reader connection) with the journal position the
    /// snapshot holds; `body` answers from it and the unstored records after that position, or returns nil
    /// when those records do not tell enough (the caller then stores them and reads again).
    private func readSnapshot<T>(_ body: (SQLiteRoomStore, UInt64) throws(StorageError) -> T?) throws(StorageError) -> T? {
        guard let reader else { throw .shutDown }
        // Records the database held before the snapshot began are no news to it: positions only grow.
        unstored.forget(through: materializer.storedThrough)
        let answer = try reader.snapshot { (position) throws(StorageError) in try body(reader, position) }
        if answer == nil { fallbackReads += 1 }
        return answer
    }

    /// Holds the database lock from another thread, like the materializer in the middle of a transaction,
    /// until the returned hold is released or dropped (tests).
    func holdDatabaseLock() -> DatabaseLockHold {
        let hold = DatabaseLockHold()
        materializer.holdLock(until: hold.semaphore)
        return hold
    }

    /// The database lock held by another thread (tests): `release()` or dropping it lets go.
    final class DatabaseLockHold {
        fileprivate let semaphore = DispatchSemaphore(value: 0)
        private var released = false

        /// Lets the holding thread release the lock (once; later calls do nothing).
        func release() {
            guard !released else { return }
            released = true
            semaphore.signal()
        }

        deinit { release() }
    }

    /// Waits until the database holds every record appended so far (tests).
    func waitUntilMaterialized() throws(StorageError) {
        try materializer.read { _ in }
    }

    /// Segment files the journal has now (tests look).
    var segmentCount: Int { segments.segmentCount }

    /// Reads that had to store the unstored records first (tests look).
    private(set) var fallbackReads = 0

    /// Records journaled and not yet stored in the database (tests look).
    var backlog: Int { materializer.backlog }

    /// Transactions the materializer has committed (tests look).
    var materializedBatches: Int { materializer.batches }

    /// Times the materializer's thread yielded its core mid-work, as of its last pass (tests look).
    var materializerYields: Int { materializer.yields }
}

extension JournaledRoomStore {
    /// The thread that applies journaled records to SQLite, and the state it shares with the lane.
    ///
    /// The lane hands records over through a `RecordInbox` (no lock: appending never waits for this
    /// thread). Whoever holds `databaseLock` may store what is waiting: the materializer's thread in the
    /// background, a read that the unstored records cannot answer (reads normally take no lock:
    /// `JournaledRoomStore.readSnapshot`), and the lane when the backlog is long (without waiting for the
    /// lock unless it is very long). So in normal operation no caller waits for this thread to be
    /// scheduled, and it runs at `SCHED_IDLE` (`ThreadPriority`): on CPU time the event loops leave over,
    /// without making the scheduler crowd other threads onto their cores (docs/bench/relays-profile.md). It
    /// yields its core every `yieldInterval` of SQLite work (`SQLiteYieldPoints`): a loop that shares the core
    /// waits at most that long for it, not until the scheduler's next tick.
    /// Each lock hold stores at most `maxWritesPerTransaction` writes.
    final class Materializer: @unchecked Sendable {
        private let inbox = RecordInbox()
        /// Guards the database, `taken` and `batchCount`; its holder alone takes records from the inbox.
        private let databaseLock = NSLock()
        private let segments: JournalSegments
        private let interval: Duration
        private let maxWritesPerTransaction: Int
        private let onFailure: @Sendable (StorageError) -> Void
        /// Guarded by `databaseLock`; nil once stopped (the database is closed).
        private var storage: SQLiteRoomStore?
        /// Guarded by `databaseLock`: records taken from the inbox and not stored yet (a failed
        /// transaction's records stay here, oldest first, and are tried again before newer ones).
        private var taken: [JournalRecord] = []
        private var batchCount = 0
        /// The last position handed over; written by the lane.
        private let appended: AtomicValue<UInt64>
        /// The last position the database holds; written by the holder of `databaseLock`.
        private let applied: AtomicValue<UInt64>
        private let stopping = AtomicValue<Bool>(false)
        private let stopped = DispatchSemaphore(value: 0)
        private let yieldInterval: Duration
        /// The thread's yields so far, published after each pass.
        private let yieldCount = AtomicValue<Int>(0)
        /// A backlog this long is stored by the lane before it journals more: memory stays bounded, and
        /// while SQLite fails, writes are refused rather than piling up.
        private let maxPending: Int

        init(storage: SQLiteRoomStore, applied: UInt64, segments: JournalSegments, interval: Duration,
             maxWritesPerTransaction: Int, maxPending: Int, runsThread: Bool, yieldInterval: Duration,
             onFailure: @escaping @Sendable (StorageError) -> Void) {
            self.storage = storage
            self.yieldInterval = yieldInterval
            self.appended = AtomicValue(applied)
            self.applied = AtomicValue(applied)
            self.segments = segments
            self.interval = interval
            self.maxWritesPerTransaction = maxWritesPerTransaction
            self.maxPending = maxPending
            self.onFailure = onFailure
            if runsThread {
                Thread { [self] in run() }.start()
            } else {
                stopped.signal()
            }
        }

        var batches: Int { databaseLock.withLock { batchCount } }

        var yields: Int { yieldCount.load(ordering: .relaxed) }

        /// Takes the database lock on a thread of its own and keeps it until `release` is signalled, as
        /// this thread does mid-transaction; returns once it is held (tests).
        func holdLock(until release: DispatchSemaphore) {
            let held = DispatchSemaphore(value: 0)
            Thread { [self] in
                databaseLock.withLock {
                    held.signal()
                    release.wait()
                }
            }.start()
            held.wait()
        }

        /// The last journal position the database holds.
        var storedThrough: UInt64 { applied.load(ordering: .acquiring) }

        /// Records handed over and not yet stored.
        var backlog: Int {
            let stored = applied.load(ordering: .acquiring)
            let handedOver = appended.load(ordering: .acquiring)
            return handedOver > stored ? Int(handedOver - stored) : 0
        }

        /// Hands a journaled record over; never waits.
        func enqueue(_ record: JournalRecord) {
            // `appended` first: the record can be stored as soon as it is pushed, and `applied` must never
            // pass `appended` (a reader of both would see a negative backlog).
            appended.store(record.position, ordering: .releasing)
            inbox.push(record)
        }

        /// Lane: from `maxPending` records on, stores the oldest chunk itself before more is journaled — one
        /// chunk per write, so a materializer that cannot keep up (a saturated machine) hands the lane a
        /// steady share of the work rather than one long stall. It does so only when the database lock is
        /// free: the materializer holding it is mid-transaction and, at `SCHED_IDLE`, may get no CPU for a
        /// while, so the write is journaled anyway — until the backlog reaches four times `maxPending`,
        /// where the lane waits for the lock: memory stays bounded.
        /// - Throws: the failure of storing; the caller refuses the write it was about to journal.
        func storeBacklogIfFull() throws(StorageError) {
            let waiting = backlog
            guard waiting >= maxPending else { return }
            if waiting >= 4 * maxPending {
                databaseLock.lock()
            } else if !databaseLock.try() {
                return
            }
            defer { databaseLock.unlock() }
            _ = try storeChunk()
        }

        /// Runs `body` on the database once every record handed over so far is stored, storing them
        /// itself if the materializer has not yet.
        /// - Throws: the failure of storing them (nothing is lost: they stay queued), or `.shutDown`.
        func read<T>(_ body: (SQLiteRoomStore) throws(StorageError) -> T) throws(StorageError) -> T {
            let target = appended.load(ordering: .acquiring)
            databaseLock.lock()
            defer { databaseLock.unlock() }
            guard let storage else { throw .shutDown }
            while applied.load(ordering: .acquiring) < target {
                guard try storeChunk() else { break }
            }
            return try body(storage)
        }

        /// Holder of `databaseLock`: stores the oldest waiting records, up to `maxWritesPerTransaction`
        /// writes (at least one record), in one transaction. Returns false when nothing waits.
        private func storeChunk() throws(StorageError) -> Bool {
            taken.append(contentsOf: inbox.takeAll())
            guard !taken.isEmpty else { return false }
            guard let storage else { throw .shutDown }
            var count = 0
            var writes: [StorageWrite] = []
            while count < taken.count, count == 0 || writes.count + taken[count].writes.count <= maxWritesPerTransaction {
                writes.append(contentsOf: taken[count].writes)
                count += 1
            }
            let through = taken[count - 1].position
            try storage.apply(writes, throughJournalRecord: through)
            taken.removeFirst(count)
            batchCount += 1
            applied.store(through, ordering: .releasing)
            segments.discard(through: through)
            return true
        }

        /// Applies everything queued (what fails stays in the journal for the next open), closes the
        /// database, and ends the thread; waits for all of it.
        func stop() {
            guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
            inbox.wake()
            stopped.wait()
            databaseLock.withLock {
                while (try? storeChunk()) == true {}
                storage = nil
            }
        }

        private func run() {
            // Lowered before it is named, so that a thread with this name always has the low priority.
            ThreadPriority.lowest()
            ThreadName.set("tandem-journal")
            SQLiteYieldPoints.enableOnCurrentThread(every: yieldInterval)
            databaseLock.withLock { storage?.addYieldPoints() }
            let clock = ContinuousClock()
            var lastApply = clock.now
            // The wait before the next try after a failed transaction; nil while storing works.
            var retryWait: Duration?
            while !stopping.load(ordering: .sequentiallyConsistent) {
                if retryWait == nil && backlog == 0 {
                    inbox.wait(until: nil)
                    continue
                }
                // Let records gather for one interval after the last transaction: fewer, larger transactions.
                let due = lastApply + (retryWait ?? interval)
                while !stopping.load(ordering: .sequentiallyConsistent), inbox.count < maxPending / 2, clock.now < due {
                    inbox.wait(until: due)
                }
                // What waits now, one chunk per lock hold (a reader or the lane never waits long for this
                // thread). Records that arrive meanwhile wait for the next pass: chasing them would cut the
                // gathering short with ever smaller transactions, each paying for the pages it rewrites.
                let target = appended.load(ordering: .acquiring)
                var failure: StorageError?
                chunks: while applied.load(ordering: .acquiring) < target {
                    let result: Result<Bool, StorageError> = databaseLock.withLock {
                        do throws(StorageError) { return .success(try storeChunk()) } catch { return .failure(error) }
                    }
                    switch result {
                    case .success(true): continue chunks
                    case .success(false): break chunks
                    case .failure(let error):
                        failure = error
                        break chunks
                    }
                }
                lastApply = clock.now
                yieldCount.store(SQLiteYieldPoints.yieldsOnCurrentThread, ordering: .relaxed)
                if let failure {
                    // Nothing is lost: the records stay queued and in the journal, and are tried again.
                    onFailure(failure)
                    retryWait = min((retryWait ?? .milliseconds(25)) * 2, .seconds(5))
                } else {
                    retryWait = nil
                }
            }
            stopped.signal()
        }
    }
}
