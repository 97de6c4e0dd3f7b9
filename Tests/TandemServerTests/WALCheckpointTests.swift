import Foundation
import Testing
@testable import TandemServer

/// The WAL is checkpointed by its own thread, never by the writer, and stays bounded.
@Suite struct WALCheckpointTests {
    @Test func theWALStaysBoundedWhileTheWriterNeverCheckpoints() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-wal-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/tandem.sqlite"
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
}
