import Foundation
import TandemSubprocess
import TandemWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh `redis-server` for one cluster deployment of the relay benchmark: a free 127.0.0.1 port, its own
/// temporary directory (removed by `stop()`), and the persistence the deployment asks for.
final class RedisBenchProcess: Sendable {
    /// The port it listens on.
    let port: Int
    private let process: ChildProcess
    private let directory: String
    private let cli: String

    /// Starts `executable` and returns once it accepts connections; a `clusterNode` runs with cluster
    /// support, its bus on another free port, waiting to be joined (`joinCluster`).
    /// - Throws: `RelayBenchError` when it cannot be started or does not accept connections within 20 s.
    init(executable: String, persistence: RelayServerKind.RedisPersistence, clusterNode: Bool = false) throws {
        port = try Self.freeLoopbackPort()
        cli = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("redis-cli").path
        directory = NSTemporaryDirectory() + "tandem-bench-redis-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var arguments = Self.arguments(port: port, directory: directory, persistence: persistence)
        if clusterNode {
            arguments += ["--cluster-enabled", "yes", "--cluster-config-file", "\(directory)/nodes.conf",
                          "--cluster-port", "\(try Self.freeLoopbackPort())"]
        }
        process = try ChildProcess(executable: executable, arguments: arguments)
        let deadline = Date().addingTimeInterval(20)
        while !LoopbackPort.isAccepting(port) {
            guard process.isRunning, Date() < deadline else {
                let log = (try? String(contentsOfFile: "\(directory)/redis.log", encoding: .utf8)) ?? ""
                stop()
                throw RelayBenchError(description: "redis-server did not accept connections on 127.0.0.1:\(port); its log ends with: \(log.suffix(500))")
            }
            usleep(5_000)
        }
    }

    /// Makes one Redis Cluster of `shards` (slots split evenly, `redis-cli --cluster create`) and returns
    /// once every shard reports `cluster_state:ok`.
    /// - Throws: `RelayBenchError` when `redis-cli` is missing, refuses, or the cluster is not up within 20 s.
    static func joinCluster(_ shards: [RedisBenchProcess]) throws {
        guard let cli = shards.first?.cli, FileManager.default.isExecutableFile(atPath: cli) else {
            throw RelayBenchError(description: "redis-cli is missing: install redis-tools to run a sharded deployment")
        }
        let create = try ChildProcess(executable: cli, arguments: ["--cluster", "create"] + shards.map { "127.0.0.1:\($0.port)" } + ["--cluster-yes"],
                                      standardOutput: .pipe)
        let output = String(decoding: create.standardOutput?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        create.waitUntilExit()
        guard create.terminationStatus == 0 else { throw RelayBenchError(description: "redis-cli --cluster create failed: \(output.suffix(500))") }
        let deadline = Date().addingTimeInterval(20)
        for shard in shards {
            while !shard.query(["CLUSTER", "INFO"]).contains("cluster_state:ok") {
                guard Date() < deadline else { throw RelayBenchError(description: "the Redis Cluster on port \(shard.port) is not ok after 20 s") }
                usleep(20_000)
            }
        }
    }

    /// What `redis-cli` prints for `command` on this server ("" when it cannot run).
    private func query(_ command: [String]) -> String {
        guard let query = try? ChildProcess(executable: cli, arguments: ["-p", "\(port)"] + command, standardOutput: .pipe) else { return "" }
        let data = query.standardOutput?.readDataToEndOfFile() ?? Data()
        query.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The `redis://` URL nodes connect to.
    var url: String { "redis://127.0.0.1:\(port)" }

    /// The process id, for `/proc`.
    var processID: Int32 { process.processIdentifier }

    /// Calls per command so far (`INFO commandstats` through `redis-cli`, commands run by scripts included);
    /// nil when `redis-cli` is missing or did not answer.
    func commandCalls() -> [String: Int]? {
        guard FileManager.default.isExecutableFile(atPath: cli) else { return nil }
        let text = query(["INFO", "commandstats"])
        // A fresh server lists no commands yet, but still answers with the section header.
        return text.contains("# Commandstats") ? Self.commandCalls(info: text) : nil
    }

    /// The `calls=` of every `cmdstat_NAME:` line of `INFO commandstats`, by lower-case command name.
    static func commandCalls(info text: String) -> [String: Int] {
        var calls: [String: Int] = [:]
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("cmdstat_") {
            guard let colon = line.firstIndex(of: ":"), let range = line.range(of: "calls=") else { continue }
            let digits = line[range.upperBound...].prefix { $0.isNumber }
            if let count = Int(digits) { calls[String(line[line.index(line.startIndex, offsetBy: 8)..<colon]).lowercased()] = count }
        }
        return calls
    }

    /// The command line: loopback only, no RDB snapshots, and an append-only file fsynced before every reply
    /// or once a second, or no persistence at all; `noeviction`, since an evicted room key would be data loss.
    static func arguments(port: Int, directory: String, persistence: RelayServerKind.RedisPersistence) -> [String] {
        let persisted = persistence != .none
        return ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", persisted ? "yes" : "no",
                "--appendfsync", persistence == .alwaysFsync ? "always" : "everysec", "--maxmemory-policy", "noeviction",
                "--dir", directory, "--logfile", "\(directory)/redis.log"]
    }

    /// Kills the server and removes its directory: its data is thrown away anyway, and a clean shutdown takes
    /// Redis up to a second.
    func stop() {
        process.send(SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A port nobody listens on right now, found by binding port 0 on 127.0.0.1 (Redis has no "any free port").
    static func freeLoopbackPort() throws -> Int {
        do {
            return try LoopbackPort.free()
        } catch {
            throw RelayBenchError(description: "no free loopback port for redis-server: \(error)")
        }
    }
}
