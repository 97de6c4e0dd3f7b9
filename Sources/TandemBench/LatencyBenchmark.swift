import Foundation
import TandemClient
import TandemProtocol
import TandemServer
import TandemProxy
import TandemWire

/// `tandem bench latency`: the time from a local change on one `SyncSession` to the change being visible
/// in another session's state, through a real server with durable acks — over loopback and over a
/// `FaultProxy` link with 60 ± 40 ms of one-way delay. The reference, measured in the same run over the
/// same path, is a WebSocket echo: a message that crosses the link twice (out and back), as a change
/// crosses it twice (author → server → viewer), with no sequencing, storage or state in between.
enum LatencyBenchmark {
    static let suite = BenchSuite(
        name: "latency",
        summary: "change-to-visible p50/p99 between two sessions (loopback; 60±40 ms link) vs. a WebSocket echo over the same path"
    ) { runs, console in
        await measure(runs: runs, console: console)
    }

    /// One path the changes travel.
    struct Path: Sendable {
        var name: String
        var faults: FaultProxy.Faults?
        var samples: Int
    }

    static let paths = [
        Path(name: "loopback", faults: nil, samples: 400),
        Path(name: "link 60±40 ms", faults: FaultProxy.Faults(latency: .milliseconds(60), jitter: .milliseconds(40)), samples: 120),
    ]

    static func measure(runs: Int, console: BenchConsole) async -> Bool {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-bench-latency-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory
        configuration.rateLimit = 0
        do {
            let server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "bench"], logger: .discarding)
            let group = try EventLoopGroup(threads: 1)
            let echoGroup = try EventLoopGroup(threads: 1)
            var echoConfiguration = WebSocketServerConfiguration()
            echoConfiguration.port = 0
            echoConfiguration.idleTimeout = nil
            let echo = try WebSocketServer.start(configuration: echoConfiguration, group: echoGroup, routes: { _ in nil }) { _, _ in EchoHandler() }
            console.out("each sample: one change, then wait until the other session shows it; samples of all runs pooled (\(runs) runs)")
            console.out("storage: SQLite (durable acks); server, sessions and link in one process")
            console.out(row("path", "Tandem p50", "Tandem p99", "echo p50", "echo p99", "p50 − echo"))
            for path in paths {
                var tandem: [Double] = []
                var reference: [Double] = []
                for _ in 0..<runs {
                    tandem += try await changeToVisible(server: server, path: path, group: group)
                    reference += try await echoRoundTrips(port: echo.port, path: path, group: group)
                }
                let gap = tandem.percentile(0.5) - reference.percentile(0.5)
                console.out(row(path.name, ms(tandem.percentile(0.5)), ms(tandem.percentile(0.99)),
                                ms(reference.percentile(0.5)), ms(reference.percentile(0.99)), ms(gap)))
            }
            echo.shutdown(timeout: .seconds(2))
            echoGroup.shutdown()
            group.shutdown()
            await server.shutdown()
            return true
        } catch {
            console.err("tandem bench latency: error: \(error)")
            return false
        }
    }

    /// Samples of change-to-visible seconds between two fresh sessions on `path`.
    static func changeToVisible(server: SyncServer, path: Path, group: EventLoopGroup) async throws -> [Double] {
        let proxy = try path.faults.map {
            try FaultProxy.start(listenPort: 0, targetHost: "127.0.0.1", targetPort: server.port, faults: $0, group: group)
        }
        let url = proxy.map { "ws://127.0.0.1:\($0.port)\(TandemProtocol.syncPath)" } ?? server.syncURL
        let room = "latency-\(UUID().uuidString)"
        func session(_ user: String) -> SyncSession {
            let token = server.tokens.mint(TokenClaims(sub: user, room: room, role: .host, exp: server.tokens.currentTime + 3_600))
            return SyncSession(url: url, clientID: "\(user)-bench", tokenProvider: { token }, transport: WireTransport(group: group))
        }
        let author = session("author"), viewer = session("viewer")
        await author.start()
        await viewer.start()
        guard await author.waitUntilConnected(timeout: .seconds(30)), await viewer.waitUntilConnected(timeout: .seconds(30)) else {
            throw BenchError("the sessions did not connect")
        }
        var samples: [Double] = []
        let clock = ContinuousClock()
        var states = await viewer.snapshots().makeAsyncIterator()
        for n in 1...path.samples {
            let started = clock.now
            try await author.apply([.set(JSONPointer(tokens: ["probe"]), .number(Double(n)))])
            while let snapshot = await states.next() {
                if snapshot.state["probe"] == .number(Double(n)) { break }
            }
            samples.append(seconds(clock.now - started))
        }
        await author.stop()
        await viewer.stop()
        await proxy?.shutdown()
        return samples
    }

    /// Samples of WebSocket echo round-trip seconds on `path` (the network's own cost of two crossings).
    static func echoRoundTrips(port: Int, path: Path, group: EventLoopGroup) async throws -> [Double] {
        let proxy = try path.faults.map {
            try FaultProxy.start(listenPort: 0, targetHost: "127.0.0.1", targetPort: port, faults: $0, group: group)
        }
        let client = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(proxy?.port ?? port)\(TandemProtocol.syncPath)", on: group.next())
        var events = client.events.makeAsyncIterator()
        var samples: [Double] = []
        let clock = ContinuousClock()
        let message = Array(#"{"type":"patch","seq":1,"ops":[{"op":"set","path":"/probe","value":1}]}"#.utf8)
        for _ in 0..<path.samples {
            let started = clock.now
            try await client.send(text: message)
            guard case .text = await events.next() else { throw BenchError("the echo connection ended") }
            samples.append(seconds(clock.now - started))
        }
        await client.close(code: CloseCode.normal.rawValue, reason: "")
        await proxy?.shutdown()
        return samples
    }

    struct BenchError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func ms(_ seconds: Double) -> String {
        String(format: "%.2f ms", seconds * 1000)
    }

    private static func row(_ columns: String...) -> String {
        columns.enumerated().map { index, text in
            index == 0 ? text.padding(toLength: 16, withPad: " ", startingAt: 0) : String(repeating: " ", count: max(0, 12 - text.count)) + text
        }.joined(separator: " ")
    }
}
