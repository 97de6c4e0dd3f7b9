import Foundation
#if canImport(CSQLite)
import CSQLite
#elseif canImport(SQLite3)
import SQLite3
#endif

/// Keeps a WAL database's `-wal` file from growing without bound under sustained writes.
///
/// Why: a passive checkpoint copies the frames that exist when it starts; SQLite rewinds the WAL to its
/// beginning only when a write transaction starts with every frame already copied. A writer that commits
/// every few hundred microseconds never finds that moment, so the file grew for as long as the load
/// lasted (≈ 75 MB/s in the relay benchmark), every new block of it was allocated by the file system, and
/// the checkpointer's `fdatasync` of that growing file stalled the writer for milliseconds at a time.
///
/// How: SQLite reports the WAL's length in frames after each commit (`sqlite3_wal_hook`). Once it reaches
/// the limit, `restartIfNeeded()` — called by the writer between transactions — runs a `RESTART`
/// checkpoint on the writer's own connection, which copies what the background checkpointer has not
/// copied yet and rewinds the WAL, and `journal_size_limit` truncates a file that grew past the limit.
/// Up to twice the limit it never waits for a lock: if the background checkpointer is mid-checkpoint (it
/// yields its core while it copies, so on a busy machine that can span many commits) or a reader is on an
/// older snapshot, the next call tries again. From twice the limit on it retries for up to
/// `backstopWait`, so the WAL stays bounded however long checkpoints take. Confined to the writer's
/// thread, like its connection.
final class WALSizeLimiter {
    private let database: SQLiteDatabase
    /// The WAL's length in frames after the last commit, written by the hook.
    private let frames: UnsafeMutablePointer<Int32>
    /// The limit in frames.
    let frameLimit: Int32
    private let busyTimeoutMilliseconds: Int32
    /// Restarts done (tests check that the limit is enforced by restarts, not by luck).
    private(set) var restarts = 0
    /// The WAL's length in frames after the last commit (tests).
    var frameCount: Int32 { frames.pointee }
    /// How long a writer at twice the limit keeps retrying the rewind before it commits on (and tries again
    /// at its next call).
    private let backstopWait: Duration

    /// Limits the WAL of `database` (the writer's connection, in WAL mode, with automatic checkpoints off:
    /// `PRAGMA wal_autocheckpoint` would replace the hook) to about `bytes`.
    /// - Parameters:
    ///   - busyTimeoutMilliseconds: the connection's busy timeout, restored after each restart.
    ///   - backstopWait: how long a writer at twice the limit retries the rewind before committing on.
    init(database: SQLiteDatabase, bytes: Int, busyTimeoutMilliseconds: Int32, backstopWait: Duration = .milliseconds(100)) throws(SQLiteError) {
        self.database = database
        self.backstopWait = backstopWait
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        let pageSizeQuery = try database.prepare("PRAGMA page_size")
        let pageSize = try pageSizeQuery.step() ? pageSizeQuery.int64(at: 0) : 4096
        pageSizeQuery.reset()
        frameLimit = Int32(clamping: max(1, bytes / max(1, Int(pageSize))))
        try database.execute("PRAGMA journal_size_limit=\(bytes)")
        frames = .allocate(capacity: 1)
        frames.initialize(to: 0)
        sqlite3_wal_hook(database.handle, { context, _, _, frames in
            context?.assumingMemoryBound(to: Int32.self).pointee = frames
            return SQLITE_OK
        }, frames)
    }

    deinit {
        sqlite3_wal_hook(database.handle, nil, nil)
        frames.deallocate()
    }

    /// Rewinds the WAL if it reached the limit. Call between transactions on the writer's thread.
    func restartIfNeeded() {
        guard frames.pointee >= frameLimit else { return }
        if restart() { return }
        guard frames.pointee / 2 >= frameLimit else { return }
        // A busy checkpoint lock does not call the busy handler (SQLite returns SQLITE_BUSY at once), so
        // the wait is a loop of short sleeps.
        let deadline = ContinuousClock.now + backstopWait
        while ContinuousClock.now < deadline {
            usleep(200)
            if restart() { return }
        }
    }

    /// One `RESTART` checkpoint without waiting for any lock; true when the WAL was rewound.
    private func restart() -> Bool {
        sqlite3_busy_timeout(database.handle, 0)
        let status = sqlite3_wal_checkpoint_v2(database.handle, nil, SQLITE_CHECKPOINT_RESTART, nil, nil)
        sqlite3_busy_timeout(database.handle, busyTimeoutMilliseconds)
        guard status == SQLITE_OK else { return false }
        frames.pointee = 0
        restarts += 1
        return true
    }
}
