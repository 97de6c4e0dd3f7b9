import Foundation
import TandemCluster
import TandemProtocol
import TandemRedis
import TandemServer
import TandemWire

/// `tandem bench rooms`: what the rooms API costs on a durable server whose rooms hold 10,000 and
/// 100,000 revisions of history: `state?rev=` of random revs (the nearest stored snapshot plus the
/// patches after it) and paging through the whole history, against `GET /healthz` (the HTTP round
/// trip itself) in the same run; then the same against one cluster node reading Redis, with the memory
/// Redis spends per retained rev.
enum RoomsAPIBenchmark {
    static let suite = BenchSuite(
        name: "rooms",
        summary: "rooms API: state?rev= latency at 10k and 100k revs of history, history pages/s, vs. a /healthz round trip"
    ) { runs, console in
        await measure(runs: runs, console: console)
    }

    /// Revisions of history of the two rooms measured.
    static let sizes = [10_000, 100_000]
    /// Reads of `state?rev=` per room and run.
    static let reads = 200

    static func measure(runs: Int, console: BenchConsole) async -> Bool {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-bench-rooms-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            let group = try EventLoopGroup(threads: 1)
            defer { group.shutdown() }
            try fill(folder: folder)
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.dataDirectory = folder
            console.out("a durable server (SQLite with the journal), rooms of 10,000 and 100,000 revs, a snapshot every 1,000; \(reads) reads of random revs, median of \(runs) runs")
            try await readAndPage(configuration: configuration, sequencing: .local, group: group, runs: runs, console: console)
            guard let redisServer = RelayServerProcess.Paths.onPath("redis-server", environment: ProcessInfo.processInfo.environment) else {
                console.out("cluster: skipped (redis-server is not on PATH)")
                return true
            }
            let redis = try RedisBenchProcess(executable: redisServer, persistence: .none)
            defer { redis.stop() }
            let memory = try await fill(redis: redis, group: group)
            var cluster = ServerConfiguration()
            cluster.port = 0
            cluster.dataDirectory = folder + "-cluster"
            cluster.inMemoryStorage = true
            cluster.redisURL = redis.url
            cluster.retainedRevisions = sizes.max() ?? 0
            defer { try? FileManager.default.removeItem(atPath: cluster.dataDirectory) }
            console.out("one cluster node (--redis, the rooms' logs and snapshots in Redis), the same rooms and reads")
            for (size, bytes) in zip(sizes, memory) {
                console.out("  Redis memory of the \(size)-rev room: log \(bytes.log / 1_024) KiB, snapshots \(bytes.snapshots / 1_024) KiB = \(bytes.log / size) + \(bytes.snapshots / size) bytes per retained rev")
            }
            try await readAndPage(configuration: cluster, sequencing: .cluster, group: group, runs: runs, console: console)
            return true
        } catch {
            console.err("tandem bench rooms: error: \(error)")
            return false
        }
    }

    /// Starts a server with `configuration`, then reads `state?rev=` of random revs and pages through
    /// each room's whole history, against `/healthz` in the same run.
    private static func readAndPage(configuration: ServerConfiguration, sequencing: RoomSequencing, group: EventLoopGroup,
                                    runs: Int, console: BenchConsole) async throws {
        let server = try SyncServer(configuration: configuration, sequencing: sequencing, environment: ["TANDEM_SECRET": "bench"], logger: .discarding)
        let token = server.tokens.mint(TokenClaims(sub: "bench", room: TokenClaims.anyRoom, role: .host, exp: server.tokens.currentTime + 3_600))
        let base = "http://127.0.0.1:\(server.port)"
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: "Bearer \(token)")
        func get(_ path: String) async throws -> (Duration, HTTPResponse) {
            let clock = ContinuousClock()
            let start = clock.now
            let response = try await HTTPClient.send(method: "GET", url: base + path, headers: headers, body: [], timeout: .seconds(60), on: group.next())
            guard response.status == 200 else { throw Failure(description: "GET \(path) answered \(response.status)") }
            return (clock.now - start, response)
        }
        var generator = SystemRandomNumberGenerator()
        var floor: [Double] = []
        for _ in 0..<(reads * runs) { floor.append(Double(try await get("/healthz").0.totalNanoseconds) / 1e6) }
        console.out("  reference: GET /healthz                 p50 \(format(floor.median)) ms, p99 \(format(floor.percentile(0.99))) ms")
        for size in sizes {
            var p50s: [Double] = [], p99s: [Double] = [], pageRates: [Double] = []
            for _ in 0..<runs {
                var latencies: [Double] = []
                for _ in 0..<reads {
                    let rev = Int.random(in: 1...size, using: &generator)
                    latencies.append(Double(try await get("/v1/rooms/r\(size)/state?rev=\(rev)").0.totalNanoseconds) / 1e6)
                }
                p50s.append(latencies.median)
                p99s.append(latencies.percentile(0.99))
                var after = 0
                let clock = ContinuousClock()
                let start = clock.now
                while after < size {
                    let (_, response) = try await get("/v1/rooms/r\(size)/history?after=\(after)&limit=1000")
                    guard case .number(let next)? = try JSONValue.parse(response.body)["next"] else { break }
                    after = Int(next)
                }
                let seconds = Double((clock.now - start).totalNanoseconds) / 1e9
                pageRates.append(Double(size) / seconds)
            }
            console.out("  \(size) revs: state?rev= p50 \(format(p50s.median)) ms, p99 \(format(p99s.median)) ms; history \(Int(pageRates.median)) patches/s in pages of 1,000")
        }
        await server.shutdown()
    }

    /// The ops of rev `rev` in both deployments' rooms.
    private static func ops(rev: Int64) -> [PatchOp] {
        [.set(JSONPointer(tokens: ["k\(rev % 100)"]), .number(Double(rev))), .set(JSONPointer(tokens: ["n"]), .number(Double(rev)))]
    }

    /// Appends the two rooms' histories to Redis through the cluster's sequencer, as nodes would (a
    /// snapshot every 1,000 revs), and returns the memory Redis reports for each room's log and snapshots.
    private static func fill(redis: RedisBenchProcess, group: EventLoopGroup) async throws -> [(log: Int, snapshots: Int)] {
        let client = RedisClient(configuration: .init(endpoint: try RedisEndpoint(url: redis.url)), group: group)
        let sequencer = RedisRoomSequencer(client: client, settings: RedisRoomSequencer.Settings(logLength: sizes.max() ?? 0))
        var memory: [(log: Int, snapshots: Int)] = []
        for size in sizes {
            let room = "r\(size)"
            let head = try await sequencer.open(room: room)
            var document = Document()
            for rev in 1...Int64(size) {
                let ops = ops(rev: rev)
                try document.apply(ops)
                var encoded: [UInt8] = []
                PatchOp.write(ops, into: &encoded)
                guard case .applied = try await sequencer.append(room: room, client: "c", user: "bench", seq: rev, ops: encoded) else {
                    throw Failure(description: "Redis did not apply rev \(rev) of \(room)")
                }
                if rev % 1_000 == 0 {
                    try await sequencer.storeSnapshot(room: room, RoomSnapshot(epoch: head.epoch, rev: rev, state: document.root.serializedBytes()))
                }
            }
            let keys = sequencer.keys(room: room)
            let log = try await client.send(["MEMORY", "USAGE", RedisArgument(keys.log), "SAMPLES", "0"]).integer ?? 0
            let snapshots = try await client.send(["MEMORY", "USAGE", RedisArgument(keys.snapshots), "SAMPLES", "0"]).integer ?? 0
            memory.append((Int(log), Int(snapshots)))
        }
        return memory
    }

    /// Writes the two rooms' histories straight into the server's database, as the server would have
    /// (patches, a snapshot every 1,000 revs, nothing trimmed).
    private static func fill(folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let store = try SQLiteRoomStore(path: (folder as NSString).appendingPathComponent("tandem.sqlite"))
        for size in sizes {
            let room = "r\(size)"
            var document = Document()
            var batch: [StorageWrite] = [.createRoom(room: room, epoch: "bench-\(size)", snapshot: Array("{}".utf8))]
            for rev in 1...Int64(size) {
                let ops = ops(rev: rev)
                try document.apply(ops)
                var encoded: [UInt8] = []
                PatchOp.write(ops, into: &encoded)
                batch.append(.appendPatch(StoredPatch(room: room, rev: rev, user: "bench", client: "c", seq: rev, ops: encoded, time: rev)))
                if rev % 1_000 == 0 {
                    batch.append(.snapshot(room: room, rev: rev, state: document.root.serializedBytes(), keepFrom: 1))
                    try store.apply(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { try store.apply(batch) }
        }
    }

    private static func format(_ milliseconds: Double) -> String { String(format: "%.2f", milliseconds) }

    /// A read that did not answer 200.
    private struct Failure: Error, CustomStringConvertible {
        var description: String
    }
}
