import Foundation
import TandemSynchronization
import TandemServer
import TandemWire

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

    /// How the simulated connections wait for their acks.
    enum Producers: String {
        /// Like the server: connections live on a few event-loop threads and an ack is delivered
        /// with `EventLoop.execute`, whose wake-ups coalesce (one per loop per batch).
        case eventLoops = "event-loop connections (as in the server)"
        /// One Swift task per connection awaiting a continuation: every ack resumes a task on
        /// the global executor (a thread wake-up per ack while the pool is idle).
        case tasks = "one task per connection"
    }

    static func measure(runs: Int, console: BenchConsole) async -> Bool {
        console.out("patches of ~80 bytes from \(producers) concurrent producers, each waiting for its ack; median of \(runs) runs")
        var status = true
        for (durability, label) in [(SQLiteRoomStore.Durability.full, "fsync per commit (full)"), (.processCrash, "process-crash safe (normal, default)")] {
            for model in [Producers.eventLoops, .tasks] {
                var grouped: [Rate] = []
                var single: [Rate] = []
                do {
                    for _ in 0..<runs {
                        // Alternate the two sides so that both see the same machine load.
                        grouped.append(try await rate(durability: durability, maxBatch: 4096, patches: 16_384, producers: model))
                        // Fewer patches where each costs an fsync, so a run stays within seconds.
                        single.append(try await rate(durability: durability, maxBatch: 1, patches: durability == .full ? 1_024 : 8_192, producers: model))
                    }
                } catch {
                    console.err("tandem bench storage: error: \(error)")
                    return false
                }
                let groupedRate = grouped.map(\.patchesPerSecond).median
                let singleRate = single.map(\.patchesPerSecond).median
                let ratio = groupedRate / singleRate
                console.out("\(label), \(model.rawValue):")
                console.out("  one transaction per patch (reference)  \(Int(singleRate)) patches/s  \(single.median(by: \.patchesPerSecond).breakdown)")
                console.out("  group commit                           \(Int(groupedRate)) patches/s  (\(String(format: "%.1f", ratio))×)  \(grouped.median(by: \.patchesPerSecond).breakdown)")
                if model == .eventLoops {
                    // The server's own store: group commits appended to the journal by the loops themselves.
                    var journaled: [Rate] = []
                    do {
                        for _ in 0..<runs {
                            journaled.append(try await rate(durability: durability, maxBatch: 4096, patches: 16_384, producers: model, journal: true))
                        }
                    } catch {
                        console.err("tandem bench storage: error: \(error)")
                        return false
                    }
                    let journalRate = journaled.map(\.patchesPerSecond).median
                    console.out("  journal + SQLite (the server's store)  \(Int(journalRate)) patches/s  (\(String(format: "%.1f", journalRate / singleRate))×)  \(journaled.median(by: \.patchesPerSecond).breakdown)")
                }
                if durability == .full && model == .eventLoops && ratio < targetRatio {
                    console.out("  target missed: group commit should reach ≥ \(Int(targetRatio))× with fsync per commit")
                    status = false
                }
            }
        }
        return status
    }

    /// Hands out revs and submits under one lock, so commit order is rev order.
    private final class Sequencer: Sendable {
        private let rev = Locked<Int64>(0)
        func next(_ submit: (Int64) -> Void) {
            rev.withLock { rev in
                rev += 1
                submit(rev)
            }
        }
    }

    /// One run's outcome: the acknowledged rate and where a patch's time went.
    struct Rate {
        var patchesPerSecond: Double
        /// Wall-clock microseconds per patch.
        var microsecondsPerPatch: Double
        /// Of which inside `RoomStore.apply` (the SQLite transaction, or the journal append), per patch.
        var applyMicrosecondsPerPatch: Double
        var transactions: Int
        var patches: Int

        var breakdown: String {
            let perTransaction = Double(patches) / Double(max(transactions, 1))
            return String(format: "[%.1f µs/patch: %.1f in the store, %.1f outside; %.0f patches/commit]",
                          microsecondsPerPatch, applyMicrosecondsPerPatch, microsecondsPerPatch - applyMicrosecondsPerPatch, perTransaction)
        }
    }

    /// Patches per second acknowledged through a fresh store and queue.
    /// - Parameter journal: measure `JournaledRoomStore` committed on the event loops, as `tandem serve` runs
    ///   it (acks after the journal append; SQLite is written behind by its materializer), instead of
    ///   `SQLiteRoomStore` on the queue's thread.
    private static func rate(durability: SQLiteRoomStore.Durability, maxBatch: Int, patches: Int, producers model: Producers,
                             journal: Bool = false) async throws -> Rate {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = TimedRoomStore(journal
            ? try JournaledRoomStore(databasePath: folder + "/bench.sqlite", journalFolder: folder + "/journal", durability: durability)
            : try SQLiteRoomStore(path: folder + "/bench.sqlite", durability: durability))
        // As the server does: acks handed to event loops wake each loop once per batch.
        let queue = CommitQueue(store: store, maxBatch: maxBatch, stages: journal ? EventLoopCommitStages() : nil) { WakeupCoalescing.batch($0) }
        try await queue.write([.createRoom(room: "bench", epoch: "e", snapshot: Array("{}".utf8))])
        let (applyBefore, transactionsBefore) = try await queue.read { _ in (store.applyNanoseconds, store.transactions) }
        let ops = Array(#"[{"op":"set","path":"/contentOffset","value":{"x":0,"y":1234.5}}]"#.utf8)
        let sequencer = Sequencer()
        let perProducer = patches / producers
        let loops = model == .eventLoops ? try EventLoopGroup(threads: 2) : nil
        let start = ContinuousClock.now
        switch model {
        case .eventLoops:
            guard let loops else { break }
            await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                let countdown = Countdown(producers) { finished.resume() }
                for producer in 0..<producers {
                    let connection = BenchConnection(producer: producer, loop: loops.next(), patches: perProducer) { connection, seq, acked in
                        sequencer.next { rev in
                            let patch = StoredPatch(room: "bench", rev: rev, user: connection.user, client: connection.client, seq: seq, ops: ops)
                            queue.write([.appendPatch(patch)]) { _ in acked() }
                        }
                    } done: {
                        countdown.tick()
                    }
                    connection.start()
                }
            }
        case .tasks:
            await withTaskGroup(of: Void.self) { group in
                for producer in 0..<producers {
                    group.addTask {
                        for seq in 1...perProducer {
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
        }
        let elapsed = ContinuousClock.now - start
        queue.shutdown()
        loops?.shutdown()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let count = perProducer * producers
        return Rate(
            patchesPerSecond: Double(count) / seconds,
            microsecondsPerPatch: seconds * 1e6 / Double(count),
            applyMicrosecondsPerPatch: Double(store.applyNanoseconds - applyBefore) / 1e3 / Double(count),
            transactions: store.transactions - transactionsBefore,
            patches: count
        )
    }

    /// Calls `body` once `count` ticks have arrived.
    private final class Countdown: Sendable {
        private let remaining: Locked<Int>
        private let body: @Sendable () -> Void

        init(_ count: Int, _ body: @escaping @Sendable () -> Void) {
            remaining = Locked(count)
            self.body = body
        }

        func tick() {
            if remaining.withLock({ $0 -= 1; return $0 == 0 }) { body() }
        }
    }

    /// One simulated connection, confined to its event loop: sends a patch, and on its ack (delivered
    /// to the loop like the server delivers acks) sends the next one.
    private final class BenchConnection: @unchecked Sendable {
        let user: String
        let client: String
        private let loop: EventLoop
        private let patches: Int
        private var seq: Int64 = 0
        private let submit: @Sendable (BenchConnection, Int64, _ acked: @escaping @Sendable () -> Void) -> Void
        private let done: @Sendable () -> Void

        init(producer: Int, loop: EventLoop, patches: Int,
             submit: @escaping @Sendable (BenchConnection, Int64, _ acked: @escaping @Sendable () -> Void) -> Void,
             done: @escaping @Sendable () -> Void) {
            user = "u\(producer)"
            client = "c\(producer)"
            self.loop = loop
            self.patches = patches
            self.submit = submit
            self.done = done
        }

        func start() {
            loop.execute { self.sendNext() }
        }

        private func sendNext() {
            guard seq < Int64(patches) else {
                done()
                return
            }
            seq += 1
            submit(self, seq) { [loop] in loop.execute { self.sendNext() } }
        }
    }
}
