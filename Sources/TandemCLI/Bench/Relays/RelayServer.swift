import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One of the servers the relay benchmark compares, run as its own process.
enum RelayServerKind: String, Sendable, CaseIterable {
    /// gorilla/websocket relay in Go (bench/relays/go, built by bench/setup into .build/bench/go-relay).
    case go
    /// `websockets` relay in Python asyncio (bench/relays/python/relay.py, run with .venv's Python).
    case python
    /// `tandem serve` with SQLite storage: every ack after its commit.
    case tandem
    /// `tandem serve --in-memory`: the same server without storage, to show what durability costs.
    case tandemMemory = "tandem-memory"

    /// Whether clients speak Tandem's protocol v1 (hello, patches, acks) rather than plain relayed text.
    var speaksTandem: Bool { self == .tandem || self == .tandemMemory }

    /// The name in tables and charts.
    var label: String {
        switch self {
        case .go: "Go gorilla/websocket relay"
        case .python: "Python websockets relay"
        case .tandem: "Tandem (durable acks)"
        case .tandemMemory: "Tandem (--in-memory)"
        }
    }

    /// The name under a bar of the chart.
    var shortLabel: String {
        switch self {
        case .go: "Go relay"
        case .python: "Python relay"
        case .tandem: "Tandem durable"
        case .tandemMemory: "Tandem in-memory"
        }
    }
}

/// Why a benchmark server or the load could not run.
struct RelayBenchError: Error, CustomStringConvertible {
    var description: String
}

/// A running benchmark server process: its port, and its CPU time and memory read from `/proc`.
final class RelayServerProcess: @unchecked Sendable {
    let kind: RelayServerKind
    let port: Int
    private let process: Process
    private let dataDirectory: String?

    /// Where the package's files are and which programs run the servers.
    struct Paths: Sendable {
        /// The package root (holds bench/ and .build/).
        var root: String
        /// The `tandem` executable (normally this very program).
        var tandem: String
        /// The Python with the pinned `websockets`.
        var python: String
        /// The built Go relay.
        var goRelay: String

        /// Finds the package root from the working directory, and the programs from it and `environment`.
        static func locate(environment: [String: String]) throws -> Paths {
            let fileManager = FileManager.default
            let root = fileManager.currentDirectoryPath
            guard fileManager.fileExists(atPath: "\(root)/bench/relays/python/relay.py") else {
                throw RelayBenchError(description: "bench/relays/python/relay.py not found: run from the Tandem package root")
            }
            let paths = Paths(
                root: root,
                tandem: environment["TANDEM_BENCH_TANDEM"] ?? Self.ownExecutable(),
                python: environment["TANDEM_PYTHON"] ?? "\(root)/.venv/bin/python",
                goRelay: "\(root)/.build/bench/go-relay")
            for program in [paths.tandem, paths.python, paths.goRelay] where !fileManager.isExecutableFile(atPath: program) {
                throw RelayBenchError(description: "\(program) is missing: run bench/setup first")
            }
            return paths
        }

        private static func ownExecutable() -> String {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        }
    }

    /// Starts a server of `kind` on a free port and waits until it listens. Tandem servers get `secret` as
    /// `TANDEM_SECRET`, no rate limit and timeouts long enough for idle connections to stay.
    init(kind: RelayServerKind, paths: Paths, secret: String) throws {
        self.kind = kind
        process = Process()
        var environment = ProcessInfo.processInfo.environment
        var data: String?
        switch kind {
        case .go:
            process.executableURL = URL(fileURLWithPath: paths.goRelay)
            process.arguments = ["--port", "0"]
        case .python:
            process.executableURL = URL(fileURLWithPath: paths.python)
            process.arguments = ["\(paths.root)/bench/relays/python/relay.py", "--port", "0"]
        case .tandem, .tandemMemory:
            let directory = NSTemporaryDirectory() + "tandem-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            data = directory
            environment["TANDEM_SECRET"] = secret
            process.executableURL = URL(fileURLWithPath: paths.tandem)
            process.arguments = [
                "serve", "--port", "0", "--data", directory, "--rate-limit", "0", "--log-level", "error",
                "--idle-timeout", "3600000", "--heartbeat", "600000", "--max-participants", "1000",
            ] + (kind == .tandemMemory ? ["--in-memory"] : [])
        }
        dataDirectory = data
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var text = ""
        var found: Int?
        while found == nil {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            found = Self.port(inBanner: text)
        }
        guard let found else {
            process.terminate()
            process.waitUntilExit()
            throw RelayBenchError(description: "\(kind.rawValue) server did not report its port; output: \(text.prefix(300))")
        }
        port = found
    }

    /// The port from a relay's `PORT N` line or from `tandem serve`'s `listening ws://HOST:PORT/v1/sync` line.
    static func port(inBanner text: String) -> Int? {
        for line in text.split(separator: "\n") {
            if line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) { return port }
            if line.contains("listening"), let url = line.split(separator: " ").last(where: { $0.hasPrefix("ws://") }),
               let path = url.range(of: "/v1/sync"), let colon = url[..<path.lowerBound].lastIndex(of: ":") {
                return Int(url[url.index(after: colon)..<path.lowerBound])
            }
        }
        return nil
    }

    /// The process id, for `/proc`.
    var processID: Int32 { process.processIdentifier }

    /// CPU seconds the server has used so far.
    var cpuSeconds: Double { LoadStatistics.cpuSeconds(processID: processID) ?? 0 }

    /// Resident memory in bytes.
    var residentBytes: Int { LoadStatistics.residentBytes(processID: processID) ?? 0 }

    /// The URL a client of `room` connects to.
    func url(room: String) -> String {
        kind.speaksTandem ? "ws://127.0.0.1:\(port)/v1/sync" : "ws://127.0.0.1:\(port)/room/\(room)"
    }

    /// Stops the server (SIGTERM, then SIGKILL after 3 s) and removes its data folder.
    func stop() {
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(3)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        if let dataDirectory { try? FileManager.default.removeItem(atPath: dataDirectory) }
    }
}
