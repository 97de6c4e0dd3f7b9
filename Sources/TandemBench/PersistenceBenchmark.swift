import Foundation
import TandemSynchronization
import TandemClient
import TandemProtocol
import TandemServer

/// `tandem bench persistence`: what keeping a session's state on disk costs the app.
///
/// (1) `apply` latency, p50 and p99 over 5,000 local changes, with a `FileSyncPersistence` against the
/// same session without one, interleaved per round (sessions not connected: `apply` is what the app
/// waits for, and saves run off its path). (2) The scroll burst: 600 offsets applied over one second
/// (one every 1.67 ms) by a persisting session connected to an in-process server, and the writes they
/// cost, which must stay far below 600: coalescing happens before the disk, and a patch's seq is saved
/// once per send of the high-rate path (at most 30 a second).
enum PersistenceBenchmark {
    /// The suite as `tandem bench` lists it.
    static let suite = BenchSuite(
        name: "persistence",
        summary: "apply p50/p99 with a persisting session vs without; writes for a 600-offset scroll burst"
    ) { runs, console in
        await run(runs: runs, console: console)
    }

    /// The targets: a persisting `apply` within 2× of a plain one at p50, and at most 60 writes for the burst.
    static let maxMedianRatio = 2.0
    static let maxBurstWrites = 60

    /// Counts the saves of the file store it forwards to.
    private final class CountingPersistence: SyncPersistence {
        let file: FileSyncPersistence
        private let count = Locked(0)
        init(_ file: FileSyncPersistence) { self.file = file }
        var saved: SyncSavedState? { file.saved }
        var saves: Int { count.withLock { $0 } }
        func save(_ state: SyncSavedState) async throws(SyncPersistenceError) {
            count.withLock { $0 += 1 }
            try await file.save(state)
        }
    }

    static func run(runs: Int, console: BenchConsole) async -> Bool {
        var plain: [Double] = []
        var persisting: [Double] = []
        var burstWrites: [Int] = []
        do {
            for _ in 0..<max(1, runs) {
                plain.append(contentsOf: try await applyLatencies(persistent: false))
                persisting.append(contentsOf: try await applyLatencies(persistent: true))
                burstWrites.append(try await burst())
            }
        } catch {
            console.err("tandem bench persistence: error: \(error)")
            return false
        }
        let ratio = persisting.median / max(plain.median, 1)
        let writes = burstWrites.map(Double.init).median
        console.out("== persistence: a session's state on disk")
        console.out("| case | apply p50 µs | apply p99 µs |")
        console.out("| --- | ---: | ---: |")
        console.out("| no persistence | \(format(plain.median)) | \(format(plain.percentile(0.99))) |")
        console.out("| FileSyncPersistence | \(format(persisting.median)) | \(format(persisting.percentile(0.99))) |")
        console.out("p50 ratio \(String(format: "%.2f", ratio))×; scroll burst of 600 offsets in 1 s: \(Int(writes)) writes (runs: \(burstWrites.map(String.init).joined(separator: ", ")))")
        var failed = false
        if ratio > maxMedianRatio {
            console.out("MISSED: persisting apply p50 \(String(format: "%.2f", ratio))× the plain one (target ≤ \(maxMedianRatio)×)")
            failed = true
        }
        if Int(writes) > maxBurstWrites {
            console.out("MISSED: \(Int(writes)) writes for the burst (target ≤ \(maxBurstWrites))")
            failed = true
        }
        if !failed { console.out("ok: persistence within its targets") }
        return !failed
    }

    private static func format(_ nanoseconds: Double) -> String { String(format: "%.2f", nanoseconds / 1_000) }

    private static func folder() -> String {
        NSTemporaryDirectory() + "tandem-bench-state-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Nanoseconds per `apply` of 5,000 changes to distinct keys.
    private static func applyLatencies(persistent: Bool) async throws -> [Double] {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let persistence = persistent ? CountingPersistence(try FileSyncPersistence(folder: path)) : nil
        let session = SyncSession(url: "ws://127.0.0.1:1/v1/sync", clientID: "bench", tokenProvider: { "t" }, persistence: persistence)
        var samples: [Double] = []
        samples.reserveCapacity(5_000)
        let clock = ContinuousClock()
        for index in 0..<5_000 {
            let ops: [PatchOp] = [.set(JSONPointer(tokens: ["k\(index % 50)"]), .number(Double(index)))]
            let start = clock.now
            try await session.apply(ops)
            let elapsed = clock.now - start
            samples.append(Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9)
        }
        await session.stop()
        return samples
    }

    /// Writes for 600 scroll offsets applied over one second by a connected session.
    private static func burst() async throws -> Int {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.inMemoryStorage = true
        configuration.dataDirectory = path + "-server"
        configuration.rateLimit = 0
        defer { try? FileManager.default.removeItem(atPath: path + "-server") }
        let server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "bench"], logger: .discarding)
        let token = server.tokens.mint(TokenClaims(sub: "bench", room: "burst", role: .host, exp: server.tokens.currentTime + 3_600))
        let persistence = CountingPersistence(try FileSyncPersistence(folder: path))
        let session = SyncSession(url: server.syncURL, clientID: "bench", tokenProvider: { token }, persistence: persistence)
        await session.start()
        guard await session.waitUntilConnected(timeout: .seconds(10)) else {
            await session.stop()
            await server.shutdown()
            throw BenchError("the burst's session did not connect")
        }
        let clock = ContinuousClock()
        let start = clock.now
        for offset in 1...600 {
            try await session.apply([.set(JSONPointer(tokens: ["contentOffset"]), ["x": 0, "y": .number(Double(offset))])])
            try await clock.sleep(until: start.advanced(by: .microseconds(1_667 * offset)))
        }
        _ = await session.drain(timeout: .seconds(10))
        await session.flush()
        let writes = persistence.saves
        await session.stop()
        await server.shutdown()
        return writes
    }

    private struct BenchError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
