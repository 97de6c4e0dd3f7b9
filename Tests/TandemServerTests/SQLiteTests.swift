import Foundation
import Testing
@testable import TandemServer

@Suite struct SQLiteTests {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tandem-sqlite-\(UUID().uuidString).sqlite").path
    }

    @Test func roundTripsIntegersTextBlobsAndNull() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.execute("CREATE TABLE t (i INTEGER, s TEXT, b BLOB, n TEXT)")
        let insert = try database.prepare("INSERT INTO t VALUES (?, ?, ?, ?)")
        try insert.bind(Int64.max, at: 1)
        try insert.bind("héllo ✓", at: 2)
        try insert.bind([0, 1, 255], at: 3)
        try insert.bindNull(at: 4)
        try insert.step()

        let select = try database.prepare("SELECT i, s, b, n FROM t")
        #expect(try select.step())
        #expect(select.int64(at: 0) == Int64.max)
        #expect(select.text(at: 1) == "héllo ✓")
        #expect(select.blob(at: 2) == [0, 1, 255])
        #expect(select.isNull(at: 3))
        #expect(select.text(at: 3) == nil)
        #expect(try select.step() == false)
    }

    @Test(arguments: ["", "a", "room-0123456789abcdef-long-enough-for-heap-storage", "nul\u{0}inside"])
    func textBindsByLengthIncludingEmptyAndLongStrings(text: String) throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.execute("CREATE TABLE t (s TEXT)")
        let insert = try database.prepare("INSERT INTO t VALUES (?)")
        try insert.bind(text, at: 1)
        try insert.step()
        let select = try database.prepare("SELECT s IS NULL, length(CAST(s AS BLOB)), s FROM t")
        #expect(try select.step())
        #expect(select.int64(at: 0) == 0, "empty text must not become NULL")
        #expect(select.int64(at: 1) == Int64(text.utf8.count))
        #expect(text.contains("\u{0}") || select.text(at: 2) == text)
    }

    @Test func emptyBlobIsStoredAsEmptyNotNull() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.execute("CREATE TABLE t (b BLOB)")
        let insert = try database.prepare("INSERT INTO t VALUES (?)")
        try insert.bind([UInt8](), at: 1)
        try insert.step()
        let select = try database.prepare("SELECT b IS NULL, length(b) FROM t")
        #expect(try select.step())
        #expect(select.int64(at: 0) == 0)
        #expect(select.int64(at: 1) == 0)
    }

    @Test func statementsAreReusableAfterReset() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.execute("CREATE TABLE t (i INTEGER)")
        let insert = try database.prepare("INSERT INTO t VALUES (?)")
        for value in Int64(1)...5 {
            try insert.bind(value, at: 1)
            try insert.step()
            insert.reset()
        }
        let sum = try database.prepare("SELECT sum(i) FROM t")
        #expect(try sum.step())
        #expect(sum.int64(at: 0) == 15)
    }

    @Test func failedTransactionRollsBackEverything() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.execute("CREATE TABLE t (i INTEGER PRIMARY KEY)")
        let insert = try database.prepare("INSERT INTO t VALUES (?)")
        #expect(throws: SQLiteError.self) {
            try database.transaction { () throws(SQLiteError) in
                try insert.bind(1, at: 1); try insert.step(); insert.reset()
                try insert.bind(1, at: 1); try insert.step() // duplicate key
            }
        }
        insert.reset()
        let count = try database.prepare("SELECT count(*) FROM t")
        #expect(try count.step())
        #expect(count.int64(at: 0) == 0)
    }

    @Test func transactionsKeepWorkingAfterARollbackAndACommitThatFails() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.execute("CREATE TABLE t (i INTEGER PRIMARY KEY)")
        let insert = try database.prepare("INSERT INTO t VALUES (?)")
        func add(_ values: [Int64]) throws(SQLiteError) {
            try database.transaction { () throws(SQLiteError) in
                for value in values {
                    defer { insert.reset() }
                    try insert.bind(value, at: 1)
                    try insert.step()
                }
            }
        }
        try add([1, 2])
        #expect(throws: SQLiteError.self) { try add([3, 1]) }   // rolled back: 3 is not kept
        try add([4])
        // A transaction inside a transaction fails at BEGIN and leaves the outer one intact.
        try database.transaction { () throws(SQLiteError) in
            #expect(throws: SQLiteError.self) { try add([5]) }
            try insert.bind(6, at: 1); try insert.step(); insert.reset()
        }
        let rows = try database.prepare("SELECT group_concat(i) FROM t")
        #expect(try rows.step())
        #expect(rows.text(at: 0) == "1,2,4,6")
    }

    @Test func errorsNameTheOperationAndSQLitesMessage() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        do {
            _ = try database.prepare("SELEC 1")
            Issue.record("bad SQL compiled")
        } catch {
            #expect(error.operation == "prepare")
            #expect(error.description.contains("syntax error"))
        }
    }

    @Test func openingAnUnwritablePathFailsWithAClearError() {
        #expect(throws: SQLiteError.self) {
            try SQLiteDatabase(path: "/nonexistent-folder-\(UUID().uuidString)/db.sqlite")
        }
    }

    @Test func dataSurvivesReopeningInWALMode() throws {
        let path = temporaryPath()
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        do {
            let database = try SQLiteDatabase(path: path)
            try database.execute("PRAGMA journal_mode=WAL; CREATE TABLE t (s TEXT)")
            try database.transaction { () throws(SQLiteError) in
                try database.execute("INSERT INTO t VALUES ('kept')")
            }
        }
        let reopened = try SQLiteDatabase(path: path)
        let mode = try reopened.prepare("PRAGMA journal_mode")
        #expect(try mode.step())
        #expect(mode.text(at: 0) == "wal")
        let select = try reopened.prepare("SELECT s FROM t")
        #expect(try select.step())
        #expect(select.text(at: 0) == "kept")
    }
}
