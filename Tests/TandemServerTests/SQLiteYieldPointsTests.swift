#if os(Linux)
import Foundation
import Testing
@testable import TandemServer

/// Background SQLite work yields its core at yield points once it has run its interval: statements of a
/// connection with yield points, and every read and write of a WAL file. Threads that did not opt in never yield.
@Suite struct SQLiteYieldPointsTests {
    /// Runs `body` on a thread of its own and returns its result: opting in is per thread, and the test's own
    /// thread belongs to a shared pool.
    private static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<T, any Error>?
        Thread {
            result = Result { try body() }
            done.signal()
        }.start()
        done.wait()
        return try result!.get()
    }

    /// Yields taken by the calling thread while a statement runs about 200,000 instructions.
    private static func yieldsDuringALongStatement(_ database: SQLiteDatabase) throws -> Int {
        let before = SQLiteYieldPoints.yieldsOnCurrentThread
        let query = try database.prepare("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) SELECT sum(i) FROM n")
        #expect(try query.step())
        #expect(query.int64(at: 0) == 200_010_000)
        query.reset()
        return SQLiteYieldPoints.yieldsOnCurrentThread - before
    }

    @Test func aThreadThatOptedInYieldsInTheStatementsOfAConnectionWithYieldPoints() throws {
        let yields = try Self.onOwnThread { () throws -> Int in
            SQLiteYieldPoints.enableOnCurrentThread(every: .zero)
            let database = try SQLiteDatabase(path: ":memory:")
            database.addYieldPoints()
            return try Self.yieldsDuringALongStatement(database)
        }
        #expect(yields > 100)
    }

    @Test func aThreadThatDidNotOptInNeverYields() throws {
        let yields = try Self.onOwnThread { () throws -> Int in
            let database = try SQLiteDatabase(path: ":memory:")
            database.addYieldPoints()
            return try Self.yieldsDuringALongStatement(database)
        }
        #expect(yields == 0)
    }

    @Test func aConnectionWithoutYieldPointsRunsItsStatementsThrough() throws {
        let yields = try Self.onOwnThread { () throws -> Int in
            SQLiteYieldPoints.enableOnCurrentThread(every: .zero)
            return try Self.yieldsDuringALongStatement(SQLiteDatabase(path: ":memory:"))
        }
        #expect(yields == 0)
    }

    @Test func aThreadYieldsOnlyOnceItHasRunItsInterval() throws {
        let yields = try Self.onOwnThread { () throws -> Int in
            SQLiteYieldPoints.enableOnCurrentThread(every: .seconds(60))
            let database = try SQLiteDatabase(path: ":memory:")
            database.addYieldPoints()
            return try Self.yieldsDuringALongStatement(database)
        }
        #expect(yields == 0)
    }

    @Test func readsAndWritesOfTheWALAreYieldPoints() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-yield-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (afterCommit, afterCheckpoint, copiedFrames) = try Self.onOwnThread { () throws -> (Int, Int, Int64) in
            SQLiteYieldPoints.enableOnCurrentThread(every: .zero)
            // No progress handler: only the WAL's file methods can yield here.
            let database = try SQLiteDatabase(path: folder + "/t.sqlite")
            try database.execute("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t (x BLOB);")
            let start = SQLiteYieldPoints.yieldsOnCurrentThread
            try database.execute("INSERT INTO t SELECT randomblob(1000) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) SELECT i FROM n)")
            let committed = SQLiteYieldPoints.yieldsOnCurrentThread
            let checkpoint = try database.prepare("PRAGMA wal_checkpoint(PASSIVE)")
            #expect(try checkpoint.step())
            let copied = checkpoint.int64(at: 2)
            checkpoint.reset()
            return (committed - start, SQLiteYieldPoints.yieldsOnCurrentThread - committed, copied)
        }
        #expect(afterCommit > 0)
        // A checkpoint reads the newest frame of each page from the WAL (the ≈ 300 rows fill ≈ 75 pages; the
        // table's root page has several frames): a yield point per page.
        #expect(copiedFrames > 50)
        #expect(afterCheckpoint * 10 >= copiedFrames * 9)
    }

    @Test func aDiscardedJournalSegmentIsDeletedInStepsThatYield() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-yield-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (yields, leftovers) = try Self.onOwnThread { () throws -> (Int, [String]) in
            SQLiteYieldPoints.enableOnCurrentThread(every: .zero)
            let segments = JournalSegments(folder: folder, segmentBytes: 1 << 20, syncEachAppend: false)
            try segments.claimFolder()
            defer { segments.release() }
            // Records of ≈ 16 KiB: the first segment passes 1 MiB with record 64, and record 65 starts the second.
            let ops = Array(repeating: UInt8(ascii: "x"), count: 16 << 10)
            for position in UInt64(1)...66 {
                let patch = StoredPatch(room: "lobby", rev: Int64(position), user: "u", client: "c", seq: Int64(position), ops: ops)
                try segments.append(JournalRecord(position: position, writes: [.appendPatch(patch)]).encoded(), position: position)
            }
            #expect(segments.segmentCount == 2)
            let before = SQLiteYieldPoints.yieldsOnCurrentThread
            segments.discard(through: 64)
            #expect(segments.segmentCount == 1)
            return (SQLiteYieldPoints.yieldsOnCurrentThread - before,
                    try FileManager.default.contentsOfDirectory(atPath: folder).sorted())
        }
        // ≈ 1 MiB in steps of 256 KiB, a yield point after each.
        #expect(yields >= 3)
        #expect(leftovers == ["00000000000000000065.log", "LOCK"])
    }
}
#endif
