#if canImport(CSQLite)
import CSQLite
#elseif canImport(SQLite3)
import SQLite3
#endif
#if canImport(CSQLiteWALBuffer)
import CSQLiteWALBuffer
import TandemProtocol
#endif

/// Lets a background thread's SQLite work hand its core back to an event loop at least every `interval`.
///
/// Why: an event loop that yields its core between polls is runnable, not asleep, so when its next event comes
/// no wake-up preempts the thread that took the core; a storage thread kept it until the scheduler's next tick
/// (up to 4 ms here) — in the relay benchmark's (b), about 50 times per 4 s for over 1 ms, most of the durable
/// p99 (docs/bench/relays-profile.md, "Storage threads yield"). With yield points every 50 µs such stalls
/// became rare. A yield costs one system call when nobody waits for the core.
///
/// Yield points are the progress handler of connections given `SQLiteDatabase.addYieldPoints()`, every read
/// and write of a WAL file (so a checkpoint reaches one per page), and `yieldPoint()` in other storage work (the
/// steps of deleting a journal segment). Only threads that called
/// `enableOnCurrentThread(every:)` yield there; any other thread passes them at once. Linux only (the points
/// live in the buffering VFS); elsewhere these calls do nothing.
enum SQLiteYieldPoints {
    /// How long a storage thread runs before it yields at the next yield point.
    static let interval: Duration = .microseconds(50)

    /// SQLite virtual-machine instructions between two progress-handler yield points (a few microseconds).
    static let instructionsPerPoint: Int32 = 100

    /// Makes the calling thread yield at yield points once it has run `interval` since its last yield.
    static func enableOnCurrentThread(every interval: Duration = Self.interval) {
        #if canImport(CSQLiteWALBuffer)
        tandem_sqlite_yield_every(max(0, interval.totalNanoseconds))
        #endif
    }

    /// A yield point in a storage thread's own work outside SQLite (deleting a journal segment piece by piece).
    static func yieldPoint() {
        #if canImport(CSQLiteWALBuffer)
        tandem_sqlite_yield_point()
        #endif
    }

    /// The times the calling thread has yielded at yield points (tests and diagnostics).
    static var yieldsOnCurrentThread: Int {
        #if canImport(CSQLiteWALBuffer)
        Int(tandem_sqlite_yield_count())
        #else
        0
        #endif
    }
}

extension SQLiteDatabase {
    /// Makes the statements of this connection pass a yield point every few instructions (see
    /// `SQLiteYieldPoints`); they never interrupt a statement. Replaces any other progress handler.
    func addYieldPoints() {
        #if canImport(CSQLiteWALBuffer)
        sqlite3_progress_handler(handle, SQLiteYieldPoints.instructionsPerPoint, { _ in tandem_sqlite_yield_progress(nil) }, nil)
        #endif
    }
}
