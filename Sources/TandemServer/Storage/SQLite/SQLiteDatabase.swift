#if canImport(CSQLite)
import CSQLite
#elseif canImport(SQLite3)
import SQLite3
#endif

/// One open SQLite database connection.
///
/// Not thread-safe by design: the storage layer gives each connection a single owner (its
/// writer thread), so no locking happens here. Closed when the value is deinitialized.
public final class SQLiteDatabase {
    /// The raw connection handle, for statements prepared on it.
    let handle: OpaquePointer
    /// `BEGIN IMMEDIATE` and `COMMIT`, prepared on first use: a group commit runs both every time, and
    /// `execute` would parse them every time. Raw handles rather than `SQLiteStatement`s, which keep
    /// their database alive: held here, they would keep it from ever closing.
    private var begin: OpaquePointer?
    private var beginRead: OpaquePointer?
    private var commit: OpaquePointer?

    /// Opens (creating if needed) the database at `path`; `":memory:"` opens a private in-memory one.
    /// - Throws: `SQLiteError` when the file cannot be opened.
    public convenience init(path: String) throws(SQLiteError) {
        try self.init(path: path, fileSystem: SQLiteFileSystem.standard)
    }

    /// Opens the database at `path` through the VFS named `fileSystem` (nil: SQLite's default).
    init(path: String, fileSystem: String?) throws(SQLiteError) {
        var connection: OpaquePointer?
        // NOMUTEX: the connection has one owner, so SQLite's own per-connection mutex is waste.
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        PrivateFiles.prepareDatabase(at: path)
        let status = sqlite3_open_v2(path, &connection, flags, fileSystem)
        guard status == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let connection { sqlite3_close_v2(connection) }
            throw SQLiteError(code: status, operation: "open \(path)", message: message)
        }
        handle = connection
        sqlite3_extended_result_codes(handle, 0)
    }

    deinit {
        sqlite3_finalize(begin)
        sqlite3_finalize(beginRead)
        sqlite3_finalize(commit)
        sqlite3_close_v2(handle)
    }

    /// Runs `sql` (a statement that returns no rows) through the prepared statement in `cached`,
    /// preparing it on first use.
    private func run(_ sql: String, cached: inout OpaquePointer?) throws(SQLiteError) {
        if cached == nil {
            let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &cached, nil)
            guard status == SQLITE_OK else { throw SQLiteError(code: status, operation: "prepare", message: lastErrorMessage) }
        }
        let status = sqlite3_step(cached)
        sqlite3_reset(cached)
        guard status == SQLITE_DONE else { throw SQLiteError(code: status, operation: sql, message: lastErrorMessage) }
    }

    /// Runs one or more SQL statements that return no rows (schema, pragmas, transactions).
    /// - Throws: `SQLiteError` naming the failing SQL's error.
    public func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if status != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(errorMessage)
            throw SQLiteError(code: status, operation: "exec", message: message)
        }
    }

    /// Prepares a statement for repeated execution; keep it and `reset` it to avoid re-parsing.
    /// - Throws: `SQLiteError` when the SQL does not compile.
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw SQLiteError(code: status, operation: "prepare", message: lastErrorMessage)
        }
        return SQLiteStatement(handle: statement, database: self)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws.
    /// - Throws: the body's error after the rollback, or `SQLiteError` from BEGIN/COMMIT.
    public func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try transaction(beginning: { () throws(SQLiteError) in try run("BEGIN IMMEDIATE", cached: &begin) }, body)
    }

    /// Runs `body` inside `BEGIN … COMMIT` without taking the write lock: every statement in it reads the
    /// same snapshot, the one committed when its first statement ran. In WAL mode such a reader does not
    /// wait for a writer, and a writer does not wait for it.
    /// - Throws: the body's error after the transaction ends, or `SQLiteError` from BEGIN/COMMIT.
    public func readTransaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try transaction(beginning: { () throws(SQLiteError) in try run("BEGIN", cached: &beginRead) }, body)
    }

    /// `begin` runs the BEGIN statement; it is a closure rather than an `inout` statement so that a nested
    /// transaction (which SQLite refuses at BEGIN) does not overlap the outer one's access to it.
    private func transaction<T>(beginning begin: () throws(SQLiteError) -> Void,
                                _ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try begin()
        do {
            let result = try body()
            try run("COMMIT", cached: &commit)
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The number of rows changed by the most recent INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }
}
