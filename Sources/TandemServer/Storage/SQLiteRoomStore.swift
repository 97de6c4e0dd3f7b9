import TandemProtocol

/// The default `RoomStore`: one SQLite database in WAL mode (`<data>/tandem.sqlite`).
///
/// Durability: every `apply` is one transaction. With `synchronous=NORMAL` (the default here)
/// a committed transaction survives the process being killed (`kill -9`): it is in the WAL file
/// before `COMMIT` returns. `synchronous=FULL` (`durability: .full`) also survives power loss,
/// at the cost of an fsync per transaction — group commit amortizes it.
///
/// An author's progress (a user's client id: last seq and its rev) is read from its newest patch while
/// that patch is in the history; the `progress` table receives it only when trimming removes the patch
/// (in the same transaction), so appending a patch writes one row and nothing else. There is
/// deliberately no index by author: its entries land on random pages, so every group commit rewrote
/// most of them into the WAL (see docs/bench/storage.md). Looking up an author's seq (`revision`) scans
/// the room's history instead; it is only needed for a duplicate older than the room's in-memory recent
/// events.
///
/// Databases whose progress was kept per bare client id (table `clients`) are moved on at open: whose
/// such a row was cannot be known, so the rows go and their rooms say they forgot some progress (a
/// client they no longer know is told so in its welcome, and drops what it cannot know was applied).
public final class SQLiteRoomStore: RoomStore {
    /// How hard a commit presses the data to disk.
    public enum Durability: Sendable {
        /// Survives a crash of the process; the OS may lose the last commits on power loss.
        case processCrash
        /// fsync on every commit: survives power loss too.
        case full
    }

    private let database: SQLiteDatabase
    /// Checkpoints the WAL from its own thread; the writer's connection only rewinds it (see `walLimit`).
    private var checkpointer: WALCheckpointer?
    private var walLimit: WALSizeLimiter?
    /// The page size of a new database: a group commit writes whole pages of each table it touches into
    /// the WAL, and its rows are small (with 1 KiB pages and the WAL rewound, the relay benchmark's server
    /// wrote ≈ 28 MB/s instead of ≈ 75, see docs/bench/relays-profile.md). An existing database keeps the
    /// page size it was created with.
    static let newDatabasePageSize = 1024
    private static let busyTimeoutMilliseconds: Int32 = 5000
    private let insertRoom: SQLiteStatement
    private let insertPatch: SQLiteStatement
    /// `insertPatch` for `rowsPerInsert` rows at once: one statement run per 16 patches of a batch.
    private let insertPatchRows: SQLiteStatement
    private static let rowsPerInsert = 16
    private let foldProgress: SQLiteStatement
    private let updateRev: SQLiteStatement
    private let updateSnapshot: SQLiteStatement
    private let trimPatches: SQLiteStatement
    private let deleteRoomPatches: SQLiteStatement
    private let deleteRoomClients: SQLiteStatement
    private let deleteRoomRow: SQLiteStatement
    private let insertSnapshot: SQLiteStatement
    private let trimSnapshots: SQLiteStatement
    private let selectSnapshotFloor: SQLiteStatement
    private let selectFirstRecent: SQLiteStatement
    private let deleteRoomSnapshots: SQLiteStatement
    private let selectSnapshot: SQLiteStatement
    private let deleteClient: SQLiteStatement
    private let markForgotClients: SQLiteStatement
    private let selectRoom: SQLiteStatement
    private let selectClients: SQLiteStatement
    private let selectPatchProgress: SQLiteStatement
    private let selectPatches: SQLiteStatement
    private let selectOldest: SQLiteStatement
    private let selectSeqRev: SQLiteStatement
    private let upsertInvite: SQLiteStatement
    private let deleteInviteStatement: SQLiteStatement
    private let selectInvites: SQLiteStatement
    private let upsertDenial: SQLiteStatement
    private let deleteDenialStatement: SQLiteStatement
    private let selectDenials: SQLiteStatement
    private let updateJournal: SQLiteStatement
    private let selectJournal: SQLiteStatement
    private let selectRoomNames: SQLiteStatement

    /// Opens (creating if needed) the database at `path` and its schema.
    /// - Parameters:
    ///   - durability: how hard each commit presses the data to disk.
    ///   - walSizeLimit: about how large, in bytes, the `-wal` file may grow before the writer rewinds it.
    /// - Throws: `StorageError.database` when the file cannot be opened or migrated.
    public convenience init(path: String, durability: Durability = .processCrash, walSizeLimit: Int = 32 << 20) throws(StorageError) {
        try self.init(path: path, durability: durability, walSizeLimit: walSizeLimit, writer: true)
    }

    /// A second connection to the database at `path` (which must exist, schema and all) that only reads:
    /// no schema changes, no WAL limit, no checkpointer. For `snapshot(_:)`, which never waits for the writer.
    static func reader(path: String) throws(StorageError) -> SQLiteRoomStore {
        try SQLiteRoomStore(path: path, durability: .processCrash, walSizeLimit: 0, writer: false)
    }

    private init(path: String, durability: Durability, walSizeLimit: Int, writer: Bool) throws(StorageError) {
        do {
            database = try SQLiteDatabase(path: path)
            try database.execute(writer ? Self.writerSetup(durability) : Self.readerSetup)
            if writer { try Self.addMissingColumns(database); try Self.dropUnownedProgress(database) }
            insertRoom = try database.prepare("INSERT OR REPLACE INTO rooms (room, epoch, rev, snapshot, snapshot_rev) VALUES (?, ?, 0, ?, 0)")
            insertPatch = try database.prepare("INSERT INTO patches (room, rev, user, client, seq, ops, time) VALUES (?, ?, ?, ?, ?, ?, ?)")
            insertPatchRows = try database.prepare("INSERT INTO patches (room, rev, user, client, seq, ops, time) VALUES "
                + Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: Self.rowsPerInsert).joined(separator: ", "))
            // Before patches are trimmed, each affected author's newest trimmed patch becomes its
            // stored progress (SQLite takes the bare `seq` from the row with max(rev)).
            foldProgress = try database.prepare("""
                INSERT INTO progress (room, user, client, last_seq, last_rev, last_seen)
                SELECT room, user, client, seq, max(rev), time FROM patches WHERE room = ?1 AND rev < ?2 GROUP BY user, client
                ON CONFLICT (room, user, client) DO UPDATE SET last_seq = excluded.last_seq, last_rev = excluded.last_rev, last_seen = excluded.last_seen
                WHERE excluded.last_rev > progress.last_rev
                """)
            updateRev = try database.prepare("UPDATE rooms SET rev = ? WHERE room = ?")
            updateSnapshot = try database.prepare("UPDATE rooms SET snapshot = ?, snapshot_rev = ? WHERE room = ?")
            trimPatches = try database.prepare("DELETE FROM patches WHERE room = ? AND rev < ?")
            deleteRoomPatches = try database.prepare("DELETE FROM patches WHERE room = ?")
            deleteRoomClients = try database.prepare("DELETE FROM progress WHERE room = ?")
            deleteRoomRow = try database.prepare("DELETE FROM rooms WHERE room = ?")
            insertSnapshot = try database.prepare("INSERT OR REPLACE INTO snapshots (room, rev, state) VALUES (?, ?, ?)")
            trimSnapshots = try database.prepare("DELETE FROM snapshots WHERE room = ? AND rev < ?")
            selectSnapshotFloor = try database.prepare("SELECT coalesce(max(rev), 0) FROM snapshots WHERE room = ? AND rev < ?")
            selectFirstRecent = try database.prepare("SELECT min(rev) FROM patches WHERE room = ? AND time >= ?")
            deleteRoomSnapshots = try database.prepare("DELETE FROM snapshots WHERE room = ?")
            selectSnapshot = try database.prepare("SELECT rev, state FROM snapshots WHERE room = ? AND rev <= ? ORDER BY rev DESC LIMIT 1")
            selectRoom = try database.prepare("SELECT epoch, rev, snapshot, snapshot_rev, forgot_clients FROM rooms WHERE room = ?")
            selectClients = try database.prepare("SELECT user, client, last_seq, last_rev, last_seen FROM progress WHERE room = ?")
            selectPatchProgress = try database.prepare("SELECT user, client, seq, max(rev), time FROM patches WHERE room = ? GROUP BY user, client")
            selectPatches = try database.prepare("SELECT rev, user, client, seq, ops, time FROM patches WHERE room = ? AND rev > ? ORDER BY rev LIMIT ?")
            deleteClient = try database.prepare("DELETE FROM progress WHERE room = ? AND user = ? AND client = ?")
            markForgotClients = try database.prepare("UPDATE rooms SET forgot_clients = 1 WHERE room = ?")
            selectOldest = try database.prepare("SELECT min(rev) FROM patches WHERE room = ?")
            selectSeqRev = try database.prepare("SELECT rev FROM patches WHERE room = ? AND user = ? AND client = ? AND seq = ?")
            upsertInvite = try database.prepare("""
                INSERT OR REPLACE INTO invites (code, room, role, created_by, created_at, expires_at, uses_left, revoked)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            deleteInviteStatement = try database.prepare("DELETE FROM invites WHERE code = ?")
            selectInvites = try database.prepare(
                "SELECT code, room, role, created_by, created_at, expires_at, uses_left, revoked FROM invites ORDER BY code")
            upsertDenial = try database.prepare("INSERT OR REPLACE INTO denials (room, user, until) VALUES (?, ?, ?)")
            deleteDenialStatement = try database.prepare("DELETE FROM denials WHERE room = ? AND user = ?")
            selectDenials = try database.prepare("SELECT room, user, until FROM denials ORDER BY room, user")
            updateJournal = try database.prepare("UPDATE journal SET applied = ? WHERE id = 1")
            selectJournal = try database.prepare("SELECT applied FROM journal WHERE id = 1")
            selectRoomNames = try database.prepare("SELECT room FROM rooms")
            if writer {
                walLimit = try WALSizeLimiter(database: database, bytes: walSizeLimit, busyTimeoutMilliseconds: Self.busyTimeoutMilliseconds)
                // After the schema exists, so the checkpointer's connection sees a WAL database.
                checkpointer = try WALCheckpointer(path: path)
            }
        } catch {
            throw .database(error)
        }
    }

    /// The writer's settings and schema; idempotent (an existing database keeps its page size and tables).
    private static func writerSetup(_ durability: Durability) -> String {
        """
        PRAGMA page_size=\(Self.newDatabasePageSize);
        PRAGMA busy_timeout=\(Self.busyTimeoutMilliseconds);
        PRAGMA journal_mode=WAL;
        PRAGMA wal_autocheckpoint=0;
        PRAGMA synchronous=\(durability == .full ? "FULL" : "NORMAL");
        CREATE TABLE IF NOT EXISTS rooms (
            room TEXT PRIMARY KEY, epoch TEXT NOT NULL, rev INTEGER NOT NULL,
            snapshot BLOB NOT NULL, snapshot_rev INTEGER NOT NULL, forgot_clients INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS patches (
            room TEXT NOT NULL, rev INTEGER NOT NULL, user TEXT NOT NULL, client TEXT NOT NULL,
            seq INTEGER NOT NULL, ops BLOB NOT NULL, time INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (room, rev)
        ) WITHOUT ROWID;
        DROP INDEX IF EXISTS patches_by_client;
        CREATE TABLE IF NOT EXISTS progress (
            room TEXT NOT NULL, user TEXT NOT NULL, client TEXT NOT NULL, last_seq INTEGER NOT NULL,
            last_rev INTEGER NOT NULL, last_seen INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (room, user, client)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS snapshots (
            room TEXT NOT NULL, rev INTEGER NOT NULL, state BLOB NOT NULL, PRIMARY KEY (room, rev)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS invites (
            code TEXT PRIMARY KEY, room TEXT NOT NULL, role TEXT NOT NULL, created_by TEXT NOT NULL,
            created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, uses_left INTEGER NOT NULL,
            revoked INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS denials (
            room TEXT NOT NULL, user TEXT NOT NULL, until INTEGER NOT NULL, PRIMARY KEY (room, user)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS journal (
            id INTEGER PRIMARY KEY CHECK (id = 1), applied INTEGER NOT NULL
        );
        INSERT OR IGNORE INTO journal (id, applied) VALUES (1, 0);
        """
    }

    /// Columns a database created by an earlier version lacks (0 reads as "not known"), added in place.
    private static func addMissingColumns(_ database: SQLiteDatabase) throws(SQLiteError) {
        for (table, column) in [("rooms", "forgot_clients"), ("patches", "time")] {
            let probe = try database.prepare("SELECT count(*) FROM pragma_table_info('\(table)') WHERE name = '\(column)'")
            guard try probe.step(), probe.int64(at: 0) == 0 else { continue }
            try database.execute("ALTER TABLE \(table) ADD COLUMN \(column) INTEGER NOT NULL DEFAULT 0")
        }
    }

    /// Progress kept per bare client id (table `clients`, from versions before progress belonged to a
    /// user's client id) cannot be given an owner: it goes, and its rooms remember having forgotten some.
    private static func dropUnownedProgress(_ database: SQLiteDatabase) throws(SQLiteError) {
        let probe = try database.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'clients'")
        let found = try probe.step() && probe.int64(at: 0) > 0
        // A statement still stepping locks the schema: DROP TABLE would fail.
        probe.reset()
        guard found else { return }
        try database.execute("""
            BEGIN;
            UPDATE rooms SET forgot_clients = 1 WHERE room IN (SELECT room FROM clients);
            DROP TABLE clients;
            COMMIT;
            """)
    }

    /// A reader's settings: it waits for a lock like the writer does, and cannot write.
    private static let readerSetup = "PRAGMA busy_timeout=\(busyTimeoutMilliseconds); PRAGMA query_only=1;"

    deinit {
        // Before the writer's connection closes (which checkpoints the rest and removes the WAL).
        checkpointer?.stop()
    }

    /// Passive checkpoints the background thread has completed (tests wait for one).
    var completedCheckpoints: Int { checkpointer?.completedCount ?? 0 }

    /// Times the writer rewound the WAL because it reached `walSizeLimit`.
    var walRestarts: Int { walLimit?.restarts ?? 0 }

    /// Yield points in the statements of this store's connection, for a background thread that opted in
    /// (`SQLiteYieldPoints`).
    func addYieldPoints() {
        database.addYieldPoints()
    }

    /// See `RoomStore.loadRoom(_:)`.
    public func loadRoom(_ room: String) throws(StorageError) -> RoomRecord? {
        do {
            defer { selectRoom.reset() }
            try selectRoom.bind(room, at: 1)
            guard try selectRoom.step() else { return nil }
            let epoch = selectRoom.text(at: 0) ?? ""
            let rev = selectRoom.int64(at: 1)
            let snapshot = selectRoom.blob(at: 2)
            let snapshotRev = selectRoom.int64(at: 3)
            let forgotClients = selectRoom.int64(at: 4) != 0

            var clients: [Peer: ClientProgress] = [:]
            defer { selectClients.reset() }
            try selectClients.bind(room, at: 1)
            while try selectClients.step() {
                let author = Peer(user: selectClients.text(at: 0) ?? "", client: selectClients.text(at: 1) ?? "")
                clients[author] = ClientProgress(lastSeq: selectClients.int64(at: 2), lastRev: selectClients.int64(at: 3), lastSeen: selectClients.int64(at: 4))
            }
            // Patches still in the history are newer than anything folded into `clients`.
            defer { selectPatchProgress.reset() }
            try selectPatchProgress.bind(room, at: 1)
            while try selectPatchProgress.step() {
                let progress = ClientProgress(lastSeq: selectPatchProgress.int64(at: 2), lastRev: selectPatchProgress.int64(at: 3),
                                              lastSeen: selectPatchProgress.int64(at: 4))
                let author = Peer(user: selectPatchProgress.text(at: 0) ?? "", client: selectPatchProgress.text(at: 1) ?? "")
                if progress.lastRev > clients[author]?.lastRev ?? 0 { clients[author] = progress }
            }

            defer { selectOldest.reset() }
            try selectOldest.bind(room, at: 1)
            try selectOldest.step()
            let oldestRev = selectOldest.isNull(at: 0) ? rev + 1 : selectOldest.int64(at: 0)

            let after = try readPatches(room: room, after: snapshotRev, limit: Int.max)
            return RoomRecord(room: room, epoch: epoch, rev: rev, snapshot: snapshot, snapshotRev: snapshotRev,
                              patchesAfterSnapshot: after, clients: clients, oldestRev: oldestRev, forgotClients: forgotClients)
        } catch {
            throw .database(error)
        }
    }

    /// See `RoomStore.apply(_:)`. One transaction; the room's rev is written once per batch rather
    /// than once per patch, and a patch's client progress lives in the patch row itself.
    public func apply(_ writes: [StorageWrite]) throws(StorageError) {
        try apply(writes, throughJournalRecord: nil)
    }

    /// `apply(_:)`, and in the same transaction records that the journal's records up to `position` are
    /// stored (`JournaledRoomStore` replays only newer ones after a crash).
    func apply(_ writes: [StorageWrite], throughJournalRecord position: UInt64?) throws(StorageError) {
        guard !writes.isEmpty || position != nil else { return }
        walLimit?.restartIfNeeded()
        var missingRoom: String?
        do {
            try database.transaction { () throws(SQLiteError) in
                var lastRev: [String: Int64] = [:]
                // Patches are inserted `rowsPerInsert` at a time; any other write first flushes
                // them, so writes still apply in order.
                var rows: [StoredPatch] = []
                rows.reserveCapacity(Self.rowsPerInsert)
                func insertRows() throws(SQLiteError) {
                    if rows.count == Self.rowsPerInsert {
                        try run(insertPatchRows) { () throws(SQLiteError) in
                            for (offset, patch) in rows.enumerated() { try bind(patch, to: insertPatchRows, from: Int32(offset * 7 + 1)) }
                        }
                    } else {
                        for patch in rows {
                            try run(insertPatch) { () throws(SQLiteError) in try bind(patch, to: insertPatch, from: 1) }
                        }
                    }
                    rows.removeAll(keepingCapacity: true)
                }
                for write in writes {
                    if case .appendPatch(let patch) = write {
                        rows.append(patch)
                        lastRev[patch.room] = patch.rev
                        if rows.count == Self.rowsPerInsert { try insertRows() }
                        continue
                    }
                    try insertRows()
                    switch write {
                    case .createRoom(let room, let epoch, let snapshot):
                        try run(deleteRoomPatches) { () throws(SQLiteError) in try deleteRoomPatches.bind(room, at: 1) }
                        try run(deleteRoomClients) { () throws(SQLiteError) in try deleteRoomClients.bind(room, at: 1) }
                        try run(insertRoom) { () throws(SQLiteError) in
                            try insertRoom.bind(room, at: 1); try insertRoom.bind(epoch, at: 2); try insertRoom.bind(snapshot, at: 3)
                        }
                        try run(deleteRoomSnapshots) { () throws(SQLiteError) in try deleteRoomSnapshots.bind(room, at: 1) }
                        try run(insertSnapshot) { () throws(SQLiteError) in
                            try insertSnapshot.bind(room, at: 1); try insertSnapshot.bind(Int64(0), at: 2); try insertSnapshot.bind(snapshot, at: 3)
                        }
                        lastRev[room] = nil
                    case .appendPatch:
                        break
                    case .snapshot(let room, let rev, let state, let keepFrom):
                        try run(updateSnapshot) { () throws(SQLiteError) in
                            try updateSnapshot.bind(state, at: 1); try updateSnapshot.bind(rev, at: 2); try updateSnapshot.bind(room, at: 3)
                        }
                        try run(insertSnapshot) { () throws(SQLiteError) in
                            try insertSnapshot.bind(room, at: 1); try insertSnapshot.bind(rev, at: 2); try insertSnapshot.bind(state, at: 3)
                        }
                        try trimHistory(room: room, keepFrom: keepFrom)
                    case .expireHistory(let room, let olderThan, let keepingFrom):
                        try insertRows()
                        // Every patch older than the cutoff: the room's next rev.
                        var recent = try firstRev(of: room, since: olderThan)
                        if recent == nil {
                            let current: Int64
                            if let rev = lastRev[room] { current = rev } else { current = try storedRev(of: room) }
                            recent = current + 1
                        }
                        try trimHistory(room: room, keepFrom: min(keepingFrom, recent ?? keepingFrom))
                    case .saveInvite(let invite):
                        try run(upsertInvite) { () throws(SQLiteError) in
                            try upsertInvite.bind(invite.code, at: 1); try upsertInvite.bind(invite.room, at: 2)
                            try upsertInvite.bind(invite.role, at: 3); try upsertInvite.bind(invite.createdBy, at: 4)
                            try upsertInvite.bind(invite.createdAt, at: 5); try upsertInvite.bind(invite.expiresAt, at: 6)
                            try upsertInvite.bind(Int64(invite.usesLeft), at: 7); try upsertInvite.bind(Int64(invite.revoked ? 1 : 0), at: 8)
                        }
                    case .deleteInvite(let code):
                        try run(deleteInviteStatement) { () throws(SQLiteError) in try deleteInviteStatement.bind(code, at: 1) }
                    case .saveDenial(let denial):
                        try run(upsertDenial) { () throws(SQLiteError) in
                            try upsertDenial.bind(denial.room, at: 1); try upsertDenial.bind(denial.user, at: 2)
                            try upsertDenial.bind(denial.until, at: 3)
                        }
                    case .deleteDenial(let room, let user):
                        try run(deleteDenialStatement) { () throws(SQLiteError) in
                            try deleteDenialStatement.bind(room, at: 1); try deleteDenialStatement.bind(user, at: 2)
                        }
                    case .forgetClients(let room, let clients):
                        for author in clients {
                            try run(deleteClient) { () throws(SQLiteError) in
                                try deleteClient.bind(room, at: 1); try deleteClient.bind(author.user, at: 2); try deleteClient.bind(author.client, at: 3)
                            }
                        }
                        try run(markForgotClients) { () throws(SQLiteError) in try markForgotClients.bind(room, at: 1) }
                    case .deleteRoom(let room):
                        try run(deleteRoomSnapshots) { () throws(SQLiteError) in try deleteRoomSnapshots.bind(room, at: 1) }
                        try run(deleteRoomPatches) { () throws(SQLiteError) in try deleteRoomPatches.bind(room, at: 1) }
                        try run(deleteRoomClients) { () throws(SQLiteError) in try deleteRoomClients.bind(room, at: 1) }
                        try run(deleteRoomRow) { () throws(SQLiteError) in try deleteRoomRow.bind(room, at: 1) }
                        lastRev[room] = nil
                    }
                }
                try insertRows()
                if let position {
                    try run(updateJournal) { () throws(SQLiteError) in try updateJournal.bind(Int64(bitPattern: position), at: 1) }
                }
                for (room, rev) in lastRev {
                    try run(updateRev) { () throws(SQLiteError) in try updateRev.bind(rev, at: 1); try updateRev.bind(room, at: 2) }
                    guard database.changes == 1 else {
                        missingRoom = room
                        throw SQLiteError(code: 0, operation: "apply", message: "no stored room named '\(room)'")
                    }
                }
            }
        } catch {
            if let missingRoom { throw .unknownRoom(missingRoom) }
            throw .database(error)
        }
    }

    /// The last journal record position stored by `apply(_:throughJournalRecord:)` (0 when none was).
    func journalPosition() throws(StorageError) -> UInt64 {
        do {
            defer { selectJournal.reset() }
            return try selectJournal.step() ? UInt64(bitPattern: selectJournal.int64(at: 0)) : 0
        } catch {
            throw .database(error)
        }
    }

    /// Runs `body` with the journal position the database holds, in one read transaction: everything
    /// `body` reads is the state as of that position, whatever the writer commits meanwhile.
    func snapshot<T>(_ body: (UInt64) throws(StorageError) -> T) throws(StorageError) -> T {
        var failure: StorageError?
        do {
            return try database.readTransaction { () throws(SQLiteError) -> T in
                do throws(StorageError) {
                    return try body(journalPosition())
                } catch {
                    failure = error
                    throw SQLiteError(code: 0, operation: "snapshot", message: error.description)
                }
            }
        } catch {
            throw failure ?? .database(error)
        }
    }

    /// The names of every stored room.
    func roomNames() throws(StorageError) -> Set<String> {
        do {
            defer { selectRoomNames.reset() }
            var names = Set<String>()
            while try selectRoomNames.step() { names.insert(selectRoomNames.text(at: 0) ?? "") }
            return names
        } catch {
            throw .database(error)
        }
    }

    /// See `RoomStore.patches(room:after:limit:)`.
    public func patches(room: String, after: Int64, limit: Int) throws(StorageError) -> [StoredPatch] {
        do {
            return try readPatches(room: room, after: after, limit: limit)
        } catch {
            throw .database(error)
        }
    }

    /// See `RoomStore.head(of:)`: the room's row and the first key of its patches, without reading them.
    public func head(of room: String) throws(StorageError) -> StoredHead? {
        do {
            defer { selectRoom.reset() }
            try selectRoom.bind(room, at: 1)
            guard try selectRoom.step() else { return nil }
            let epoch = selectRoom.text(at: 0) ?? ""
            let rev = selectRoom.int64(at: 1)
            defer { selectOldest.reset() }
            try selectOldest.bind(room, at: 1)
            try selectOldest.step()
            return StoredHead(epoch: epoch, rev: rev, oldestRev: selectOldest.isNull(at: 0) ? rev + 1 : selectOldest.int64(at: 0))
        } catch {
            throw .database(error)
        }
    }

    /// The first rev of `room` committed at or after `time` (unix ms), nil when every patch is older.
    private func firstRev(of room: String, since time: Int64) throws(SQLiteError) -> Int64? {
        defer { selectFirstRecent.reset() }
        try selectFirstRecent.bind(room, at: 1)
        try selectFirstRecent.bind(time, at: 2)
        guard try selectFirstRecent.step(), !selectFirstRecent.isNull(at: 0) else { return nil }
        return selectFirstRecent.int64(at: 0)
    }

    /// The rev the room's row holds.
    private func storedRev(of room: String) throws(SQLiteError) -> Int64 {
        defer { selectRoom.reset() }
        try selectRoom.bind(room, at: 1)
        guard try selectRoom.step() else { return 0 }
        return selectRoom.int64(at: 1)
    }

    /// Trims `room`'s history back to the newest snapshot before `keepFrom`, so that every state from
    /// that snapshot on can still be rebuilt; the progress of the patches that go moves to `progress`.
    private func trimHistory(room: String, keepFrom: Int64) throws(SQLiteError) {
        let floor = try snapshotFloor(room: room, before: keepFrom)
        try run(foldProgress) { () throws(SQLiteError) in try foldProgress.bind(room, at: 1); try foldProgress.bind(floor + 1, at: 2) }
        try run(trimPatches) { () throws(SQLiteError) in try trimPatches.bind(room, at: 1); try trimPatches.bind(floor + 1, at: 2) }
        try run(trimSnapshots) { () throws(SQLiteError) in try trimSnapshots.bind(room, at: 1); try trimSnapshots.bind(floor, at: 2) }
    }

    /// The rev of the newest snapshot of `room` before rev `keepFrom` (0 when there is none).
    private func snapshotFloor(room: String, before keepFrom: Int64) throws(SQLiteError) -> Int64 {
        defer { selectSnapshotFloor.reset() }
        try selectSnapshotFloor.bind(room, at: 1)
        try selectSnapshotFloor.bind(keepFrom, at: 2)
        guard try selectSnapshotFloor.step() else { return 0 }
        return selectSnapshotFloor.int64(at: 0)
    }

    /// See `RoomStore.snapshot(room:atOrBefore:)`. A database of an earlier version keeps only the latest
    /// snapshot, in the room's row: it serves too.
    public func snapshot(room: String, atOrBefore rev: Int64) throws(StorageError) -> StoredSnapshot? {
        do {
            defer { selectSnapshot.reset() }
            try selectSnapshot.bind(room, at: 1)
            try selectSnapshot.bind(rev, at: 2)
            if try selectSnapshot.step() { return StoredSnapshot(rev: selectSnapshot.int64(at: 0), state: selectSnapshot.blob(at: 1)) }
            defer { selectRoom.reset() }
            try selectRoom.bind(room, at: 1)
            guard try selectRoom.step(), selectRoom.int64(at: 3) <= rev else { return nil }
            return StoredSnapshot(rev: selectRoom.int64(at: 3), state: selectRoom.blob(at: 2))
        } catch {
            throw .database(error)
        }
    }

    private func readPatches(room: String, after: Int64, limit: Int) throws(SQLiteError) -> [StoredPatch] {
        do {
            defer { selectPatches.reset() }
            try selectPatches.bind(room, at: 1)
            try selectPatches.bind(after, at: 2)
            try selectPatches.bind(Int64(clamping: limit), at: 3)
            var result: [StoredPatch] = []
            while try selectPatches.step() {
                result.append(StoredPatch(room: room, rev: selectPatches.int64(at: 0), user: selectPatches.text(at: 1) ?? "",
                                          client: selectPatches.text(at: 2) ?? "", seq: selectPatches.int64(at: 3), ops: selectPatches.blob(at: 4),
                                          time: selectPatches.int64(at: 5)))
            }
            return result
        }
    }

    /// See `RoomStore.revision(room:author:seq:)`.
    public func revision(room: String, author: Peer, seq: Int64) throws(StorageError) -> Int64? {
        do {
            defer { selectSeqRev.reset() }
            try selectSeqRev.bind(room, at: 1)
            try selectSeqRev.bind(author.user, at: 2)
            try selectSeqRev.bind(author.client, at: 3)
            try selectSeqRev.bind(seq, at: 4)
            return try selectSeqRev.step() ? selectSeqRev.int64(at: 0) : nil
        } catch {
            throw .database(error)
        }
    }

    /// See `RoomStore.invites()`.
    public func invites() throws(StorageError) -> [StoredInvite] {
        do {
            defer { selectInvites.reset() }
            var result: [StoredInvite] = []
            while try selectInvites.step() {
                result.append(StoredInvite(
                    code: selectInvites.text(at: 0) ?? "", room: selectInvites.text(at: 1) ?? "", role: selectInvites.text(at: 2) ?? "",
                    createdBy: selectInvites.text(at: 3) ?? "", createdAt: selectInvites.int64(at: 4), expiresAt: selectInvites.int64(at: 5),
                    usesLeft: Int(selectInvites.int64(at: 6)), revoked: selectInvites.int64(at: 7) != 0))
            }
            return result
        } catch {
            throw .database(error)
        }
    }

    /// See `RoomStore.denials()`.
    public func denials() throws(StorageError) -> [StoredDenial] {
        do {
            defer { selectDenials.reset() }
            var result: [StoredDenial] = []
            while try selectDenials.step() {
                result.append(StoredDenial(room: selectDenials.text(at: 0) ?? "", user: selectDenials.text(at: 1) ?? "", until: selectDenials.int64(at: 2)))
            }
            return result
        } catch {
            throw .database(error)
        }
    }

    /// Binds `patch`'s six columns to parameters `first`...`first + 5` of `statement`.
    private func bind(_ patch: StoredPatch, to statement: SQLiteStatement, from first: Int32) throws(SQLiteError) {
        try statement.bind(patch.room, at: first); try statement.bind(patch.rev, at: first + 1)
        try statement.bind(patch.user, at: first + 2); try statement.bind(patch.client, at: first + 3)
        try statement.bind(patch.seq, at: first + 4); try statement.bind(patch.ops, at: first + 5)
        try statement.bind(patch.time, at: first + 6)
    }

    /// Binds with `bind`, steps once, and resets, so a failure never leaves a statement half-used.
    private func run(_ statement: SQLiteStatement, bind: () throws(SQLiteError) -> Void) throws(SQLiteError) {
        defer { statement.reset() }
        try bind()
        try statement.step()
    }
}
