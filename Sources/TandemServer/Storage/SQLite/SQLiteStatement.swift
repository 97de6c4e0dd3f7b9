#if canImport(CSQLite)
import CSQLite
#elseif canImport(SQLite3)
import SQLite3
#endif

/// A prepared SQLite statement: bind parameters (1-based), step through rows, reset, repeat.
///
/// Owned by the same single owner as its database; finalized when deinitialized.
public final class SQLiteStatement {
    private let handle: OpaquePointer
    // Keeps the connection open for as long as a statement prepared on it lives.
    private let database: SQLiteDatabase

    init(handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds an integer to parameter `index` (1-based).
    public func bind(_ value: Int64, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, index, value), "bind")
    }

    /// Binds text (copied by SQLite) to parameter `index`.
    public func bind(_ value: String, at index: Int32) throws(SQLiteError) {
        // Passing the UTF-8 bytes with their length avoids building a NUL-terminated copy (an
        // allocation per bind on the commit path); text with an embedded NUL binds whole, too.
        var value = value
        let status = value.withUTF8 { bytes -> Int32 in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_text(handle, index, "", 0, sqliteTransient) }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(handle, index, $0, Int32(bytes.count), sqliteTransient)
            }
        }
        try check(status, "bind")
    }

    /// Binds a blob (copied by SQLite) to parameter `index`; an empty array binds an empty blob.
    public func bind(_ bytes: [UInt8], at index: Int32) throws(SQLiteError) {
        let status = bytes.withUnsafeBytes { buffer in
            sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), sqliteTransient)
        }
        try check(status, "bind")
    }

    /// Binds SQL NULL to parameter `index`.
    public func bindNull(at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_null(handle, index), "bind")
    }

    /// Advances to the next row; returns `false` when the statement is done.
    /// - Throws: `SQLiteError` for constraint violations, I/O errors and the like.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError(code: status, operation: "step", message: database.lastErrorMessage)
        }
    }

    /// Resets the statement for another execution and clears its bindings.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// The integer in column `index` (0-based) of the current row.
    public func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// The text in column `index` of the current row, or `nil` for NULL.
    public func text(at index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, index) else { return nil }
        return String(cString: pointer)
    }

    /// The bytes in column `index` of the current row (empty for NULL or an empty blob).
    public func blob(at index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let pointer = sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Whether column `index` of the current row is NULL.
    public func isNull(at index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    private func check(_ status: Int32, _ operation: String) throws(SQLiteError) {
        guard status == SQLITE_OK else {
            throw SQLiteError(code: status, operation: operation, message: database.lastErrorMessage)
        }
    }
}

/// SQLite's `SQLITE_TRANSIENT` destructor sentinel (-1), which the C macro cannot give Swift:
/// it tells SQLite to copy bound bytes before the call returns.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
