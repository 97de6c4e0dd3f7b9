#if canImport(CSQLite)
import CSQLite
#elseif canImport(SQLite3)
import SQLite3
#endif
#if canImport(CSQLiteWALBuffer)
import CSQLiteWALBuffer
#endif

/// The SQLite VFS ("file system") that Tandem's database connections open their files with.
///
/// Where the platform has it (Linux), that is a VFS that writes a WAL transaction's frames with one call
/// instead of two per page (`CSQLiteWALBuffer`): the journal's materializer spent about half of its CPU in
/// those calls. Frames still reach the file before any other connection can see them, so readers,
/// checkpoints and crash recovery behave exactly as with SQLite's own VFS. Elsewhere, SQLite's default.
enum SQLiteFileSystem {
    /// The name the buffering VFS is registered under.
    static let walBuffering = "tandem-wal-buffer"

    /// The VFS for new connections: the buffering one when it can be registered, otherwise nil (SQLite's
    /// default).
    static var standard: String? {
        register(walBuffering) ? walBuffering : nil
    }

    /// Registers a buffering VFS under `name` (once; later calls find it). Thread-safe.
    /// - Returns: whether a VFS of that name is available.
    static func register(_ name: String) -> Bool {
        #if canImport(CSQLiteWALBuffer)
        return tandem_wal_buffer_register(name) == SQLITE_OK
        #else
        return false
        #endif
    }

    /// How many writes the buffering VFS `name` has made to WAL files, and the bytes they carried (zeros
    /// when there is no such VFS). Tests compare them before and after a transaction.
    static func walWrites(_ name: String) -> (writes: Int, bytes: Int) {
        #if canImport(CSQLiteWALBuffer)
        var writes: Int64 = 0
        var bytes: Int64 = 0
        tandem_wal_buffer_counts(name, &writes, &bytes)
        return (Int(writes), Int(bytes))
        #else
        return (0, 0)
        #endif
    }
}
