import Foundation
import TandemWire

/// `tandem bench relays`: Tandem's server against a Go (gorilla/websocket) and a Python (`websockets`) relay,
/// each a separate process on this machine, driven by one load generator on one TandemWire event loop.
/// Servers alternate within each round (A B C D, A B C D, …); the report gives medians and spread, and the run
/// exits 1 when a scenario failed or one of the relay targets for Tandem was missed.
///
/// `--runs N` sets the rounds. Environment: `TANDEM_BENCH_SERVERS` (e.g. `go,tandem`), `TANDEM_BENCH_SCENARIOS`
/// (`a,b,c,d`), `TANDEM_BENCH_SECONDS` (measure window, default 4), `TANDEM_BENCH_WINDOW` (messages in flight per client in
/// (a), default 16), `TANDEM_BENCH_IDLE` (idle connections, default 10000), `TANDEM_BENCH_TANDEM` (the `tandem`
/// binary to serve with, default this one), `TANDEM_BENCH_DOCS` (a folder to write `relays.md` and `relays.svg` into) and
/// `TANDEM_BENCH_COMMAND` (the command line recorded in the report).
///
/// Cluster deployments: `TANDEM_BENCH_SERVERS=tandem,tandem-memory,tandem-redis,tandem-redis-2` (also
/// `tandem-redis-volatile`, `tandem-redis-2-volatile`, `tandem-redis-everysec`, `tandem-redis-2-everysec`) starts a fresh `redis-server` (`TANDEM_BENCH_REDIS`, default
/// from PATH) and 1 or 2 nodes per measurement; the report then goes to `cluster.md` (or `TANDEM_BENCH_REPORT`), not
/// `relays.md`. `TANDEM_BENCH_RATE` sets (b)'s messages/s per client (default 20); `TANDEM_BENCH_SERVER_LOGS` keeps
/// every server's standard error in that folder.
enum RelayBenchmark {
    static let suite = BenchSuite(
        name: "relays",
        summary: "Tandem vs Go gorilla/websocket and Python websockets relays: peak, fixed rate, idle memory, resume storm"
    ) { runs, console in
        await run(rounds: runs, console: console, environment: ProcessInfo.processInfo.environment)
    }

    /// What to run, read from the environment.
    struct Settings: Sendable {
        var servers: [RelayServerKind] = RelayServerKind.relayComparison
        var scenarios: Set<String> = ["a", "b", "c", "d"]
        var sizes = RelayScenarios.Sizes()
        var docs: String?
        /// The file name of the cluster report in `docs` (default `cluster.md`).
        var report: String?
        var command = "bench/run"

        init(environment: [String: String]) throws {
            if let list = environment["TANDEM_BENCH_SERVERS"] {
                servers = try list.split(separator: ",").map { name in
                    guard let kind = RelayServerKind(rawValue: String(name)) else {
                        throw RelayBenchError(description: "unknown server '\(name)' in TANDEM_BENCH_SERVERS (known: \(RelayServerKind.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                    return kind
                }
            }
            if let list = environment["TANDEM_BENCH_SCENARIOS"] { scenarios = Set(list.split(separator: ",").map(String.init)) }
            if let text = environment["TANDEM_BENCH_SECONDS"] {
                guard let seconds = Int(text), (1...60).contains(seconds) else {
                    throw RelayBenchError(description: "TANDEM_BENCH_SECONDS must be 1...60, not \(text)")
                }
                sizes.measure = .seconds(seconds)
            }
            if let text = environment["TANDEM_BENCH_WINDOW"] {
                guard let window = Int(text), (1...1000).contains(window) else {
                    throw RelayBenchError(description: "TANDEM_BENCH_WINDOW must be 1...1000, not \(text)")
                }
                sizes.window = window
            }
            if let text = environment["TANDEM_BENCH_IDLE"] {
                guard let count = Int(text), (10...100_000).contains(count) else {
                    throw RelayBenchError(description: "TANDEM_BENCH_IDLE must be 10...100000, not \(text)")
                }
                sizes.idleConnections = count
            }
            if let text = environment["TANDEM_BENCH_RATE"] {
                guard let rate = Int(text), (1...1000).contains(rate) else {
                    throw RelayBenchError(description: "TANDEM_BENCH_RATE must be 1...1000 messages/s per client, not \(text)")
                }
                sizes.messagesPerSecond = rate
            }
            docs = environment["TANDEM_BENCH_DOCS"]
            report = environment["TANDEM_BENCH_REPORT"]
            command = Self.recordedCommand(environment["TANDEM_BENCH_COMMAND"] ?? command, environment: environment)
        }

        /// The command as someone would retype it: the selecting variables that were set, then `command`.
        static func recordedCommand(_ command: String, environment: [String: String]) -> String {
            let prefix = ["TANDEM_BENCH_SERVERS", "TANDEM_BENCH_SCENARIOS", "TANDEM_BENCH_SECONDS", "TANDEM_BENCH_WINDOW", "TANDEM_BENCH_RATE"]
                .compactMap { name in environment[name].map { "\(name)=\($0) " } }.joined()
            return prefix + command
        }

        /// Whether the run includes a cluster deployment: its report is `cluster.md`, not `relays.md`.
        var includesCluster: Bool { servers.contains { $0.isCluster } }
    }

    /// Everything measured for one server in one round.
    struct Run: Sendable {
        var kind: RelayServerKind
        var round: Int
        var loadAverage: Double
        var peak: RelayScenarios.Peak?
        var fixedRate: RelayScenarios.FixedRate?
        var idle: RelayScenarios.Idle?
        var resume: RelayScenarios.ResumeStorm?
        var failures: [String] = []

        /// Deliveries of a cluster deployment that never arrived, over its scenarios (0 for other kinds).
        var neverDelivered: Int { (peak?.neverDelivered ?? 0) + (fixedRate?.neverDelivered ?? 0) }

        /// The order and ack checks of all its scenarios.
        var audit: DeliveryAudit {
            [peak?.audit, fixedRate?.audit, resume?.audit].compactMap { $0 }.reduce(DeliveryAudit(), +)
        }

        /// Why the run's output is wrong, if it is: any order/ack anomaly of a Tandem server, and for a cluster
        /// deployment any lost delivery (a single node's loss is reported but was never judged, so it stays so).
        var correctnessFailures: [String] {
            var found: [String] = []
            if !audit.isClean { found.append("order check: \(audit.summary)") }
            if kind.isCluster {
                if let lost = peak.map({ $0.neverDelivered ?? $0.lost }), lost > 0 { found.append("(a) \(lost) deliveries never arrived") }
                if let lost = fixedRate.map({ $0.neverDelivered ?? $0.lost }), lost > 0 { found.append("(b) \(lost) deliveries never arrived") }
            }
            return found
        }
    }

    static func run(rounds: Int, console: BenchConsole, environment: [String: String]) async -> Bool {
        let settings: Settings
        let paths: RelayServerProcess.Paths
        do {
            settings = try Settings(environment: environment)
            paths = try RelayServerProcess.Paths.locate(environment: environment)
        } catch {
            console.err("tandem bench relays: error: \(error)")
            return false
        }
        _ = try? FileDescriptorLimit.raiseSoftLimitToHard()
        let group: EventLoopGroup
        do {
            group = try EventLoopGroup(threads: 1)
        } catch {
            console.err("tandem bench relays: error: \(error)")
            return false
        }
        defer { group.shutdown() }
        let loop = group.next()
        let secretText = (0..<32).map { _ in String(UInt8.random(in: 0...15), radix: 16) }.joined()
        let secret = Array(secretText.utf8)
        let started = Date()
        let loadAtStart = LoadStatistics.loadAverages()
        var runs: [Run] = []
        for round in 1...rounds {
            for kind in settings.servers {
                var result = Run(kind: kind, round: round, loadAverage: LoadStatistics.loadAverage())
                await measure(&result, paths: paths, loop: loop, secretText: secretText, secret: secret, settings: settings)
                result.failures += result.correctnessFailures
                console.out(RelayReport.line(result))
                runs.append(result)
            }
        }
        let report = RelayReport(runs: runs, settings: settings, rounds: rounds, started: started, finished: Date())
        console.out("")
        console.out(report.summaryTable())
        let targets = report.targets()
        for line in targets.lines { console.out(line) }
        if let docs = settings.docs, settings.includesCluster {
            do {
                let cluster = ClusterReport(relay: report, loadAtStart: loadAtStart, loadAtEnd: LoadStatistics.loadAverages())
                let name = settings.report ?? "cluster.md"
                try cluster.markdown().write(toFile: "\(docs)/\(name)", atomically: true, encoding: .utf8)
                console.out("wrote \(docs)/\(name)")
            } catch {
                console.err("tandem bench relays: error: cannot write the report: \(error)")
                return false
            }
        } else if let docs = settings.docs {
            do {
                try report.markdown().write(toFile: "\(docs)/relays.md", atomically: true, encoding: .utf8)
                try report.svg().write(toFile: "\(docs)/relays.svg", atomically: true, encoding: .utf8)
                console.out("wrote \(docs)/relays.md and \(docs)/relays.svg")
            } catch {
                console.err("tandem bench relays: error: cannot write the report: \(error)")
                return false
            }
        }
        return !runs.contains { !$0.failures.isEmpty } && targets.met
    }

    /// Runs the selected scenarios against fresh server processes: one for (a), (b) and (d), and a separate one for
    /// (c), so the idle-memory baseline is not inflated or shrunk by the heap of earlier scenarios.
    private static func measure(
        _ result: inout Run, paths: RelayServerProcess.Paths, loop: EventLoop, secretText: String, secret: [UInt8], settings: Settings
    ) async {
        let kind = result.kind
        let sizes = settings.sizes
        let tag = "r\(result.round)"
        let active = settings.scenarios.intersection(kind.speaksTandem ? ["a", "b", "d"] : ["a", "b"])
        if !active.isEmpty {
            do {
                let server = try RelayDeployment(kind: kind, paths: paths, secret: secretText)
                defer { server.stop() }
                do {
                    if active.contains("a") {
                        result.peak = try await RelayScenarios.peak(server, loop: loop, secret: secret, tag: "\(tag)a", sizes: sizes)
                    }
                    if active.contains("b") {
                        var attempts: [RelayScenarios.FixedRate] = []
                        repeat {
                            // Rooms of their own for every run: a repeated run starts from empty rooms too.
                            let suffix = attempts.isEmpty ? "" : "\(attempts.count + 1)"
                            attempts.append(try await RelayScenarios.fixedRate(server, loop: loop, secret: secret, tag: "\(tag)b\(suffix)", sizes: sizes))
                        } while HostStealRule.repeats(after: attempts)
                        result.fixedRate = HostStealRule.kept(attempts)
                    }
                    if active.contains("d") {
                        result.resume = try await RelayScenarios.resumeStorm(server, loop: loop, secret: secret, tag: "\(tag)d", sizes: sizes)
                    }
                } catch {
                    result.failures.append("\(error)")
                }
            } catch {
                result.failures.append("\(error)")
            }
        }
        if settings.scenarios.contains("c") {
            do {
                let server = try RelayDeployment(kind: kind, paths: paths, secret: secretText)
                defer { server.stop() }
                do {
                    result.idle = try await RelayScenarios.idle(server, loop: loop, secret: secret, tag: "\(tag)c", sizes: sizes)
                } catch {
                    result.failures.append("\(error)")
                }
            } catch {
                result.failures.append("\(error)")
            }
        }
    }
}
