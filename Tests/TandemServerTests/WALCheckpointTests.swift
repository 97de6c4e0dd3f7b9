import Foundation
import Testing
@testable import TandemServer

/// The WAL is copied into the database by its own thread, rewound by the writer when it reaches its
/// limit, and stays bounded.
@Suite struct WALCheckpointTests {
    private func temporaryDatabase() throws -> (folder: String, path: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-wal-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return (folder, folder + "/tandem.sqlite")
    }

    @Test func aWriterThatNeverPausesStillKeepsTheWALNearItsLimit() throws {
        let (folder, path) = try temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let limit = 256 << 10
        var store: SQLiteRoomStore? = try SQLiteRoomStore(path: path, walSizeLimit: limit)
        try store!.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8))])
        let ops = Array(#"[{"op":"set","path":"/blob","value":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 2_000) + Array(#""}]"#.utf8)
        func walBytes() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
        }
        // Back-to-back small commits, like a busy server's group commits: ~6 MB in all, 25 times the limit.
        var largest = 0
        for rev in Int64(1)...2_000 {
            try store!.apply([.appendPatch(StoredPatch(room: "lobby", rev: rev, user: "u", client: "c", seq: rev, ops: ops))])
            if rev % 50 == 0 { largest = max(largest, walBytes()) }
        }
        #expect(store!.walRestarts > 0)
        // Without the limiter the WAL reaches ~13 MB here. A rewind that meets the background checkpointer's
        // lock is retried after the next commit, and from twice the limit on the writer waits for it (up to
        // 100 ms), so on a busy machine the WAL may pass the limit by a few commits.
        #expect(largest <= 4 * limit, "the WAL grew to \(largest) bytes with a \(limit)-byte limit")
        store = nil
        let reopened = try SQLiteRoomStore(path: path)
        #expect(try reopened.loadRoom("lobby")?.rev == 2_000)
        #expect(try reopened.patches(room: "lobby", after: 1_990, limit: 100).map(\.rev) == Array(1_991...2_000))
    }

    @Test func newDatabasesUseSmallPagesAndExistingOnesKeepTheirs() throws {
        let (folder, path) = try temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func pageSize(_ path: String) throws -> Int64 {
            let database = try SQLiteDatabase(path: path)
            let query = try database.prepare("PRAGMA page_size")
            return try query.step() ? query.int64(at: 0) : 0
        }
        do {
            let store = try SQLiteRoomStore(path: path)
            try store.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8))])
        }
        #expect(try pageSize(path) == Int64(SQLiteRoomStore.newDatabasePageSize))

        let older = folder + "/older.sqlite"
        do {
            let database = try SQLiteDatabase(path: older)
            try database.execute("PRAGMA page_size=4096; PRAGMA journal_mode=WAL; CREATE TABLE t (x INTEGER);")
        }
        do {
            let store = try SQLiteRoomStore(path: older)
            try store.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8))])
            #expect(try store.loadRoom("lobby")?.epoch == "e1")
        }
        #expect(try pageSize(older) == 4096)
    }

    @Test func theWALStaysBoundedWhileTheWriterNeverCheckpoints() async throws {
        let (folder, path) = try temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var store: SQLiteRoomStore? = try SQLiteRoomStore(path: path)
        try store!.apply([.createRoom(room: "lobby", epoch: "e1", snapshot: Array("{}".utf8))])
        let ops = Array(#"[{"op":"set","path":"/blob","value":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 4_000) + Array(#""}]"#.utf8)
        func walBytes() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
        }
        // 10 rounds of ~2 MB: without checkpoints the WAL would hold all ~20 MB.
        var rev: Int64 = 0
        var largest = 0
        let deadline = ContinuousClock.now + .seconds(30)
        for _ in 0..<10 {
            let checkpointsBefore = store!.completedCheckpoints
            var writes: [StorageWrite] = []
            for _ in 0..<500 {
                rev += 1
                writes.append(.appendPatch(StoredPatch(room: "lobby", rev: rev, user: "u", client: "c", seq: rev, ops: ops)))
            }
            try store!.apply(writes)
            largest = max(largest, walBytes())
            // Let the background thread checkpoint this round before the next one starts.
            while store!.completedCheckpoints == checkpointsBefore, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(store!.completedCheckpoints >= 10)
        #expect(largest < 8_000_000, "the WAL grew to \(largest) bytes: checkpoints are not keeping up")
        store = nil
        // Everything committed is there after the writer closed (and the last checkpoint ran).
        let reopened = try SQLiteRoomStore(path: path)
        #expect(try reopened.loadRoom("lobby")?.rev == rev)
    }

    @Test func theCheckpointerYieldsItsCoreWhileItCopies() throws {
        let (folder, path) = try temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A WAL of ≈ 75 pages that nobody has checkpointed yet.
        let database = try SQLiteDatabase(path: path)
        try database.execute("""
            PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t (x BLOB);
            INSERT INTO t SELECT randomblob(1000) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) SELECT i FROM n);
            """)
        // Yielding at every yield point: one per page copied.
        let checkpointer = try WALCheckpointer(path: path, interval: .milliseconds(5), yieldInterval: .zero)
        defer { checkpointer.stop() }
        let deadline = ContinuousClock.now + .seconds(10)
        while checkpointer.completedCount == 0, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        #expect(checkpointer.completedCount > 0)
        #expect(checkpointer.yieldCount > 50)
    }

    /// A WAL database with automatic checkpoints off, its size limiter, and a reader connection.
    private func limitedDatabase(limit: Int, backstopWait: Duration) throws -> (folder: String, writer: SQLiteDatabase, limiter: WALSizeLimiter, reader: SQLiteDatabase) {
        let (folder, path) = try temporaryDatabase()
        let writer = try SQLiteDatabase(path: path)
        try writer.execute("PRAGMA page_size=1024; PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t (x BLOB);")
        let limiter = try WALSizeLimiter(database: writer, bytes: limit, busyTimeoutMilliseconds: 5000, backstopWait: backstopWait)
        return (folder, writer, limiter, try SQLiteDatabase(path: path))
    }

    /// One transaction of ≈ 4 pages, with the limiter's check before it, as `SQLiteRoomStore.apply` does.
    private static func commit(_ writer: SQLiteDatabase, _ limiter: WALSizeLimiter) throws {
        limiter.restartIfNeeded()
        try writer.execute("INSERT INTO t VALUES (randomblob(3000))")
    }

    @Test func pastTwiceTheLimitTheWriterWaitsForTheRewind() throws {
        let limit = 64 << 10
        let (folder, writer, limiter, reader) = try limitedDatabase(limit: limit, backstopWait: .seconds(5))
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A reader on an old snapshot makes every rewind busy, as a checkpoint in progress does.
        try reader.execute("BEGIN; SELECT count(*) FROM t;")
        // Up to twice the limit the writer never waits: nothing is rewound.
        while limiter.frameCount < 2 * limiter.frameLimit { try Self.commit(writer, limiter) }
        #expect(limiter.restarts == 0)
        // Past it, the writer retries until the reader lets go.
        let released = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let heldReader = reader
        Thread {
            Thread.sleep(forTimeInterval: 0.05)
            try? heldReader.execute("COMMIT")
            released.signal()
        }.start()
        try Self.commit(writer, limiter)
        released.wait()
        #expect(limiter.restarts == 1)
    }

    @Test func aWriterWaitsForTheRewindNoLongerThanItsBackstop() throws {
        let (folder, writer, limiter, reader) = try limitedDatabase(limit: 64 << 10, backstopWait: .milliseconds(50))
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try reader.execute("BEGIN; SELECT count(*) FROM t;")
        while limiter.frameCount < 2 * limiter.frameLimit { try Self.commit(writer, limiter) }
        // The reader never lets go: each call past twice the limit gives up after the backstop and commits on.
        let start = ContinuousClock.now
        for _ in 0..<3 { try Self.commit(writer, limiter) }
        let waited = ContinuousClock.now - start
        #expect(limiter.restarts == 0)
        // Three waits of 50 ms each: at least that, and far from unbounded (slack for a busy machine).
        #expect(waited >= .milliseconds(150))
        #expect(waited < .seconds(3))
        try reader.execute("COMMIT")
        limiter.restartIfNeeded()
        #expect(limiter.restarts == 1)
    }
}
