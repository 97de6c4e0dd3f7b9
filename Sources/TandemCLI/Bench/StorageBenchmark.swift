import Foundation
import Synchronization
import TandemServer

/// `tandem bench storage`: acknowledged patches per second through the server's commit queue and
/// SQLite store, with group commit against one transaction per patch, in the same run.
///
/// Both sides submit the same patches from the same concurrent producers to the same kind of
/// database; the only difference is the queue's batch bound (unbounded vs. 1). A patch counts as
/// acknowledged when its completion runs, which is when the server would send its `ack`.
enum StorageBenchmark {
    /// Group commit must reach at least this many times the per-patch rate (durability `.full`).
    static let targetRatio = 20.0
    /// Concurrent producers, each waiting for its ack before sending again: like a server with
    /// this many active connections, one patch in flight each.
    static let producers = 256

    static let suite = BenchSuite(
        name: "storage",
        summary: "acked patches/s: group commit vs. one transaction per patch (SQLite WAL)"
    ) { runs, console in
        await measure(runs: runs, console: console)
    }

    static func measure(runs: Int, console: any Console) async -> Int32 {
        console.out("patches of ~80 bytes from \(producers) concurrent producers, each waiting for its ack; median of \(runs) runs")
        var status = ExitCode.success
        for (durability, label) in [(SQLiteRoomStore.Durability.full, "fsync per commit (full)"), (.processCrash, "process-crash safe (normal, default)")] {
            var grouped: [Double] = []
            var single: [Double] = []
            do {
                for _ in 0..<runs {
                    // Alternate the two sides so that both see the same machine load.
                    grouped.append(try await rate(durability: durability, maxBatch: 4096, patches: 16_384))
                    // Fewer patches where each costs an fsync, so a run stays within seconds.
                    single.append(try await rate(durability: durability, maxBatch: 1, patches: durability == .full ? 1_024 : 8_192))
                }
            } catch {
                console.err("tandem bench storage: error: \(error)")
                return ExitCode.failure
            }
            let ratio = grouped.median / single.median
            console.out("\(label):")
            console.out("  one transaction per patch (reference)  \(Int(single.median)) patches/s")
            console.out("  group commit                           \(Int(grouped.median)) patches/s  (\(String(format: "%.1f", ratio))×)")
            if durability == .full && ratio < targetRatio {
                console.out("  target missed: group commit should reach ≥ \(Int(targetRatio))× with fsync per commit")
                status = ExitCode.failure
            }
        }
        return status
    }

    /// Hands out revs and submits under one lock, so commit order is rev order.
    private final class Sequencer: Sendable {
        private let rev = Mutex<Int64>(0)
        func next(_ submit: (Int64) -> Void) {
            rev.withLock { rev in
                rev += 1
                submit(rev)
            }
        }
    }

    /// Patches per second acknowledged through a fresh store and queue.
    private static func rate(durability: SQLiteRoomStore.Durability, maxBatch: Int, patches: Int) async throws -> Double {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let queue = CommitQueue(store: try SQLiteRoomStore(path: folder + "/bench.sqlite", durability: durability), maxBatch: maxBatch)
        try await queue.write([.createRoom(room: "bench", epoch: "e", snapshot: Array("{}".utf8))])
        let ops = Array(#"[{"op":"set","path":"/contentOffset","value":{"x":0,"y":1234.5}}]"#.utf8)
        let sequencer = Sequencer()
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<producers {
                group.addTask {
                    for seq in 1...(patches / producers) {
                        // Revs are handed out in submission order, as a room's sequencer does.
                        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                            sequencer.next { rev in
                                let patch = StoredPatch(room: "bench", rev: rev, user: "u\(producer)", client: "c\(producer)", seq: Int64(seq), ops: ops)
                                queue.write([.appendPatch(patch)]) { _ in done.resume() }
                            }
                        }
                    }
                }
            }
        }
        let elapsed = ContinuousClock.now - start
        queue.shutdown()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(patches / producers * producers) / seconds
    }
}
