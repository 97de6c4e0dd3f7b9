import Foundation
import Testing
@testable import TandemServer

/// The buffering VFS writes a WAL transaction with few calls, and never lets another connection, a
/// checkpoint or a reopened database see less than SQLite's own VFS would.
@Suite struct WALBufferTests {
    /// A fresh database folder and a VFS of its own (the counts are per VFS name).
    private struct Fixture {
        let folder: String
        let path: String
        let vfs: String

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-walbuffer-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            path = folder + "/test.sqlite"
            vfs = "tandem-wal-buffer-test-\(UUID().uuidString)"
            #expect(SQLiteFileSystem.register(vfs))
        }

        /// A connection like the server's (WAL mode, 1 KiB pages, `synchronous=NORMAL`: no sync at commit, so
        /// only the VFS itself writes a commit out), through the buffering VFS or SQLite's own.
        func open(buffered: Bool = true) throws -> SQLiteDatabase {
            let database = try SQLiteDatabase(path: path, fileSystem: buffered ? vfs : nil)
            try database.execute("""
                PRAGMA page_size=1024; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0;
                PRAGMA busy_timeout=5000;
                CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, body BLOB NOT NULL);
                """)
            return database
        }

        var writes: (writes: Int, bytes: Int) { SQLiteFileSystem.walWrites(vfs) }

        func remove() { try? FileManager.default.removeItem(atPath: folder) }
    }

    private func insert(_ ids: ClosedRange<Int64>, bodyBytes: Int, into database: SQLiteDatabase) throws {
        let statement = try database.prepare("INSERT INTO rows (id, body) VALUES (?, ?)")
        try database.transaction { () throws(SQLiteError) in
            for id in ids {
                defer { statement.reset() }
                try statement.bind(id, at: 1)
                try statement.bind(Array(repeating: UInt8(truncatingIfNeeded: id), count: bodyBytes), at: 2)
                try statement.step()
            }
        }
    }

    private func ids(in database: SQLiteDatabase) throws -> [Int64] {
        let query = try database.prepare("SELECT id FROM rows ORDER BY id")
        var result: [Int64] = []
        while try query.step() { result.append(query.int64(at: 0)) }
        return result
    }

    /// The rows and body bytes `reader` sees now (another connection's view of what was committed).
    private func rowsAndBytes(seenBy reader: SQLiteDatabase) throws -> (rows: Int64, bytes: Int64) {
        let query = try reader.prepare("SELECT count(*), coalesce(sum(length(body)), 0) FROM rows")
        guard try query.step() else { return (0, 0) }
        return (query.int64(at: 0), query.int64(at: 1))
    }

    @Test func aTransactionsFramesReachTheWALInOneWrite() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let database = try fixture.open()
        try insert(1...1, bodyBytes: 10, into: database)
        let before = fixture.writes
        // About 40 pages of 1 KiB: SQLite's own VFS makes two calls per page, 80 or more.
        try insert(2...41, bodyBytes: 900, into: database)
        let after = fixture.writes
        #expect(after.writes - before.writes == 1)
        #expect(after.bytes - before.bytes >= 40 * (24 + 1024))
    }

    @Test func everyCommitIsVisibleToAnotherConnectionAtOnce() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let writer = try fixture.open()
        let reader = try fixture.open(buffered: false)
        for id in Int64(1)...200 {
            try insert(id...id, bodyBytes: Int(id) * 7, into: writer)
            let seen = try rowsAndBytes(seenBy: reader)
            #expect(seen.rows == id && seen.bytes == 7 * id * (id + 1) / 2)
        }
    }

    @Test func aCommitFrameThatDoesNotFitTheBufferIsStillWrittenAtTheCommit() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let writer = try fixture.open()
        let reader = try fixture.open(buffered: false)
        // Transactions of 40 to 80 pages: for some of them the commit frame's page no longer fits the 64 KiB
        // buffer, which is written out first; the commit frame must still reach the file before the commit returns.
        var rows: Int64 = 0
        for size in Int64(40)...80 {
            try insert((rows + 1)...(rows + size), bodyBytes: 900, into: writer)
            rows += size
            let seen = try rowsAndBytes(seenBy: reader)
            #expect(seen.rows == rows && seen.bytes == 900 * rows, "after a transaction of \(size) rows")
        }
    }

    @Test(arguments: [70_000, 140_000, 400_000])
    func aTransactionLargerThanTheBufferIsStoredWhole(bytes: Int) throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let rows = Int64(bytes / 1_000)
        do {
            let database = try fixture.open()
            try insert(1...1, bodyBytes: 10, into: database)
            let before = fixture.writes
            try insert(2...(rows + 1), bodyBytes: 1_000, into: database)
            let written = fixture.writes.writes - before.writes
            // Pieces of 64 KiB: a few calls where SQLite's own VFS makes two per page.
            #expect(written >= 2 && written <= bytes / 50_000 + 2, "\(written) writes")
            #expect(try ids(in: fixture.open(buffered: false)) == Array(1...(rows + 1)))
        }
        // Closed (checkpointed) and reopened without the buffering VFS: the same rows.
        #expect(try ids(in: fixture.open(buffered: false)) == Array(1...(rows + 1)))
    }

    @Test func aTransactionThatRewritesItsOwnFramesIsStoredWhole() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let database = try fixture.open()
        // A page cache of 8 pages spills the transaction's pages into the WAL before the commit; pages
        // changed again later are rewritten in place, behind the end of what was buffered.
        try database.execute("PRAGMA cache_size=8")
        let update = try database.prepare("UPDATE rows SET body = ? WHERE id = ?")
        try database.transaction { () throws(SQLiteError) in
            let insert = try database.prepare("INSERT INTO rows (id, body) VALUES (?, ?)")
            for id in Int64(1)...200 {
                defer { insert.reset() }
                try insert.bind(id, at: 1)
                try insert.bind(Array(repeating: 1, count: 500), at: 2)
                try insert.step()
            }
            for id in Int64(1)...200 {
                defer { update.reset() }
                try update.bind(Array(repeating: UInt8(truncatingIfNeeded: id), count: 500), at: 1)
                try update.bind(id, at: 2)
                try update.step()
            }
        }
        let reader = try fixture.open(buffered: false)
        let check = try reader.prepare("SELECT id, body FROM rows ORDER BY id")
        var seen: Int64 = 0
        while try check.step() {
            seen += 1
            #expect(check.int64(at: 0) == seen)
            let body = check.blob(at: 1)
            #expect(body.count == 500 && Set(body) == [UInt8(truncatingIfNeeded: seen)], "row \(seen) holds \(Set(body).sorted())")
        }
        #expect(seen == 200)
        let integrity = try reader.prepare("PRAGMA integrity_check")
        #expect(try integrity.step() && integrity.text(at: 0) == "ok")
    }

    @Test func aWALThatAlreadyHasFramesIsContinuedCorrectly() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        // The plain connection keeps the WAL (and its frames) alive; the buffering one opens it mid-way.
        let plain = try fixture.open(buffered: false)
        try insert(1...20, bodyBytes: 900, into: plain)
        let buffered = try fixture.open()
        let before = fixture.writes
        try insert(21...40, bodyBytes: 900, into: buffered)
        #expect(fixture.writes.writes - before.writes == 1)
        try insert(41...45, bodyBytes: 900, into: plain)
        try insert(46...50, bodyBytes: 900, into: buffered)
        #expect(try ids(in: plain) == Array(1...50))
        #expect(try ids(in: buffered) == Array(1...50))
    }

    @Test func aRewoundWALStartsOverCorrectly() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let database = try fixture.open()
        let reader = try fixture.open(buffered: false)
        var last: Int64 = 0
        for round in 0..<5 {
            try insert((last + 1)...(last + 30), bodyBytes: 500, into: database)
            last += 30
            // RESTART and TRUNCATE rewind the WAL: the next transaction writes a new header at offset 0.
            try database.execute(round % 2 == 0 ? "PRAGMA wal_checkpoint(RESTART)" : "PRAGMA wal_checkpoint(TRUNCATE)")
            #expect(try ids(in: reader) == Array(1...last))
        }
        try insert((last + 1)...(last + 10), bodyBytes: 500, into: database)
        #expect(try ids(in: reader) == Array(1...(last + 10)))
    }

    @Test func anUnknownNameHasNoCounts() {
        let counts = SQLiteFileSystem.walWrites("no-such-vfs-\(UUID().uuidString)")
        #expect(counts.writes == 0 && counts.bytes == 0)
    }
}
