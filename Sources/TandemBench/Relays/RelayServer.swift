import Foundation
import TandemSubprocess

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a benchmark server or the load could not run.
struct RelayBenchError: Error, CustomStringConvertible {
    var description: String
}

/// A running benchmark server process: its port, and its CPU time and memory read from `/proc`.
final class RelayServerProcess: Sendable {
    let kind: RelayServerKind
    let port: Int
    private let process: ChildProcess
    private let dataDirectory: String?
    /// The endpoint a `tandem-webhook-hanging` server sends its events to (lives as long as the server).
    private let webhookEndpoint: HangingEndpoint?

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
        /// `redis-server` for the cluster deployments (`TANDEM_BENCH_REDIS`, else found on PATH); nil when missing.
        var redis: String? = nil
        /// A folder that keeps every server's standard error (`TANDEM_BENCH_SERVER_LOGS`), for diagnosing a failed run.
        var serverLogs: String? = nil

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
                goRelay: "\(root)/.build/bench/go-relay",
                redis: environment["TANDEM_BENCH_REDIS"] ?? Self.onPath("redis-server", environment: environment),
                serverLogs: environment["TANDEM_BENCH_SERVER_LOGS"])
            for program in [paths.tandem, paths.python, paths.goRelay] where !fileManager.isExecutableFile(atPath: program) {
                throw RelayBenchError(description: "\(program) is missing: run bench/setup first")
            }
            return paths
        }

        static func onPath(_ program: String, environment: [String: String]) -> String? {
            let directories = (environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
            return directories.map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }

        private static func ownExecutable() -> String {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        }
    }

    /// Starts a server of `kind` on a free port and waits until it listens. Tandem servers get `secret` as
    /// `TANDEM_SECRET`, no rate limit and timeouts long enough for idle connections to stay; the nodes of a
    /// cluster kind join the Redis at `redisURL` as `nodeID`.
    init(kind: RelayServerKind, paths: Paths, secret: String, redisURL: String? = nil, nodeID: String? = nil) throws {
        self.kind = kind
        var environment = ProcessInfo.processInfo.environment
        var data: String?
        let executable: String, arguments: [String]
        switch kind {
        case .go:
            (executable, arguments) = (paths.goRelay, ["--port", "0"])
        case .python:
            (executable, arguments) = (paths.python, ["\(paths.root)/bench/relays/python/relay.py", "--port", "0"])
        case .tandem, .tandemMemory, .tandemTLS, .tandemWebhookHanging, .tandemRedis, .tandemRedis2, .tandemRedisVolatile, .tandemRedis2Volatile, .tandemRedisEverysec, .tandemRedis2Everysec,
             .tandemRedisSharded, .tandemRedis2Sharded, .tandemRedis2Affinity:
            let directory = NSTemporaryDirectory() + "tandem-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            data = directory
            if kind == .tandemTLS { try Self.makeCertificate(in: directory) }
            environment["TANDEM_SECRET"] = secret
            (executable, arguments) = (paths.tandem, Self.tandemArguments(kind: kind, dataDirectory: directory, redisURL: redisURL, nodeID: nodeID))
        }
        let endpoint = kind == .tandemWebhookHanging ? try HangingEndpoint() : nil
        webhookEndpoint = endpoint
        var allArguments = arguments
        if let endpoint { allArguments += ["--webhook", endpoint.url, "--webhook-secret", "bench"] }
        dataDirectory = data
        var log: FileHandle?
        if let folder = paths.serverLogs {
            let path = "\(folder)/\(kind.rawValue)-\(nodeID ?? "server")-\(Date().timeIntervalSince1970).log"
            if FileManager.default.createFile(atPath: path, contents: nil) { log = FileHandle(forWritingAtPath: path) }
        }
        process = try ChildProcess(executable: executable, arguments: allArguments, environment: environment, standardOutput: .pipe,
                                   standardError: log.map { .descriptor($0.fileDescriptor) } ?? .null)
        try? log?.close()
        var text = ""
        var found: Int?
        while found == nil, let output = process.standardOutput {
            let chunk = output.availableData
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

    /// The `tandem serve` command line of a Tandem kind: storage in `dataDirectory` (invitations only for cluster
    /// nodes, which run `--in-memory` and keep rooms in Redis), no rate limit, long timeouts.
    static func tandemArguments(kind: RelayServerKind, dataDirectory: String, redisURL: String?, nodeID: String?) -> [String] {
        var arguments = [
            "serve", "--port", "0", "--data", dataDirectory, "--rate-limit", "0", "--log-level", "error",
            "--idle-timeout", "3600000", "--heartbeat", "600000", "--max-participants", "1000",
        ]
        if kind == .tandemMemory || kind.isCluster { arguments.append("--in-memory") }
        if kind == .tandemTLS { arguments += ["--tls-cert", "\(dataDirectory)/\(certificateFile)", "--tls-key", "\(dataDirectory)/key.pem"] }
        if kind.isCluster, let redisURL {
            arguments += ["--redis", redisURL]
            if kind.redisShards > 1 { arguments.append("--redis-cluster") }
            if let nodeID { arguments += ["--node-id", nodeID] }
        }
        return arguments
    }

    /// The port from a relay's `PORT N` line or from `tandem serve`'s `listening ws://HOST:PORT/v1/sync` line.
    static func port(inBanner text: String) -> Int? {
        for line in text.split(separator: "\n") {
            if line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) { return port }
            if line.contains("listening"), let url = line.split(separator: " ").first(where: { $0.hasPrefix("ws://") || $0.hasPrefix("wss://") }),
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
        kind == .tandemTLS ? "wss://127.0.0.1:\(port)/v1/sync"
            : kind.speaksTandem ? "ws://127.0.0.1:\(port)/v1/sync" : "ws://127.0.0.1:\(port)/room/\(room)"
    }

    /// The PEM file of a TLS server's self-signed certificate, which its clients trust.
    static let certificateFile = "certificate.pem"

    /// The path of the certificate clients trust; nil for servers without TLS.
    var trustedCertificate: String? { kind == .tandemTLS ? dataDirectory.map { "\($0)/\(Self.certificateFile)" } : nil }

    /// A self-signed P-256 certificate for 127.0.0.1, valid for a day, made with the openssl CLI.
    private static func makeCertificate(in directory: String) throws {
        let openssl = try ChildProcess(executable: "/usr/bin/openssl", arguments: [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "\(directory)/key.pem", "-out", "\(directory)/\(certificateFile)", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else {
            throw RelayBenchError(description: "openssl could not make the TLS server's certificate (install openssl)")
        }
    }

    /// Stops the server (SIGTERM, then SIGKILL after 3 s) and removes its data folder.
    func stop() {
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(3)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        process.send(SIGKILL)
        process.waitUntilExit()
        if let dataDirectory { try? FileManager.default.removeItem(atPath: dataDirectory) }
    }
}
