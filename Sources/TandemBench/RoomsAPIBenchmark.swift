import Foundation
import TandemProtocol
import TandemServer
import TandemWire

/// `tandem bench rooms`: what the rooms API costs on a durable server whose rooms hold 10,000 and
/// 100,000 revisions of history: `state?rev=` of random revs (the nearest stored snapshot plus the
/// patches after it) and paging through the whole history, against `GET /healthz` (the HTTP round
/// trip itself) in the same run.
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
            try fill(folder: folder)
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.dataDirectory = folder
            let server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "bench"], logger: .discarding)
            let group = try EventLoopGroup(threads: 1)
            defer { group.shutdown() }
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
            console.out("a durable server (SQLite with the journal), rooms of 10,000 and 100,000 revs, a snapshot every 1,000; \(reads) reads of random revs, median of \(runs) runs")
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
                    var after = 0, pages = 0
                    let clock = ContinuousClock()
                    let start = clock.now
                    while after < size {
                        let (_, response) = try await get("/v1/rooms/r\(size)/history?after=\(after)&limit=1000")
                        guard case .number(let next)? = try JSONValue.parse(response.body)["next"] else { break }
                        after = Int(next)
                        pages += 1
                    }
                    let seconds = Double((clock.now - start).totalNanoseconds) / 1e9
                    pageRates.append(Double(size) / seconds)
                }
                console.out("  \(size) revs: state?rev= p50 \(format(p50s.median)) ms, p99 \(format(p99s.median)) ms; history \(Int(pageRates.median)) patches/s in pages of 1,000")
            }
            await server.shutdown()
            return true
        } catch {
            console.err("tandem bench rooms: error: \(error)")
            return false
        }
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
                let ops: [PatchOp] = [.set(JSONPointer(tokens: ["k\(rev % 100)"]), .number(Double(rev))), .set(JSONPointer(tokens: ["n"]), .number(Double(rev)))]
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
