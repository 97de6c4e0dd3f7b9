import Foundation
import TandemProtocol

/// Moves a WAL database's checkpoints off the writer: a thread with its own connection copies
/// committed WAL frames into the database file every `interval` (`PRAGMA wal_checkpoint(PASSIVE)`),
/// while the writer's connection runs with `wal_autocheckpoint=0`.
///
/// Why: SQLite's automatic checkpoint runs inside the commit that crosses the WAL size threshold, on
/// the writer's thread, and includes an fsync even at `synchronous=NORMAL`; every ack of that group
/// commit waited for it (the relay benchmark's durable p99 went from 21 ms to 3 ms without it). A
/// passive checkpoint never blocks the writer (only a WAL at twice its limit makes the writer wait for
/// it, `WALSizeLimiter`), and durability is unchanged: what was committed is already in the WAL. The thread yields its core every `SQLiteYieldPoints.interval` of copying (a yield
/// point per page), so an event loop sharing the core waits for at most that much of it. Thread-safe;
/// `stop()` waits for the thread and is idempotent.
final class WALCheckpointer: @unchecked Sendable {
    private let path: String
    private let interval: TimeInterval
    private let yieldInterval: Duration
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var stopping = false
    private var finished = false
    private var completed = 0
    private var yields = 0

    /// Starts checkpointing the database at `path` every `interval`, yielding the core every `yieldInterval`
    /// of work (tests make it zero).
    /// - Throws: `SQLiteError` when the checkpointer's own connection cannot be opened.
    init(path: String, interval: Duration = .milliseconds(200), yieldInterval: Duration = SQLiteYieldPoints.interval) throws(SQLiteError) {
        self.path = path
        self.yieldInterval = yieldInterval
        self.interval = interval.totalSeconds
        // Opened here so a failure reaches the caller; from then on only the thread uses it.
        nonisolated(unsafe) let database = try SQLiteDatabase(path: path)
        Thread { [self] in run(database) }.start()
    }

    /// Checkpoints completed so far (tests use it to wait for one).
    var completedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return completed
    }

    /// Times the thread has yielded its core mid-checkpoint, as of its last completed checkpoint (tests).
    var yieldCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return yields
    }

    /// Stops the thread after its current checkpoint and waits for it to end.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    deinit {
        stop()
    }

    private func run(_ database: SQLiteDatabase) {
        ThreadName.set("tandem-wal-ckpt")
        SQLiteYieldPoints.enableOnCurrentThread(every: yieldInterval)
        condition.lock()
        while !stopping {
            _ = condition.wait(until: Date(timeIntervalSinceNow: interval))
            if stopping { break }
            condition.unlock()
            // PASSIVE: copies what it can without waiting for the writer; SQLITE_BUSY just means "next time".
            let ok = (try? database.execute("PRAGMA wal_checkpoint(PASSIVE)")) != nil
            condition.lock()
            if ok { completed += 1 }
            yields = SQLiteYieldPoints.yieldsOnCurrentThread
        }
        finished = true
        condition.broadcast()
        condition.unlock()
    }
}
