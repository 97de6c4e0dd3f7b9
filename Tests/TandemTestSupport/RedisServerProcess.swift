import Foundation
import TandemSubprocess
import TandemWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A throwaway `redis-server` for tests: listens on a free 127.0.0.1 port, keeps its files in a
/// temporary directory, persists nothing, and is killed by `stop()`, or when the last reference to it
/// goes (a test that throws before its `stop()` leaves no server running after the test process).
public final class RedisServerProcess: Sendable {
    /// The port it listens on.
    public let port: Int
    /// Its cluster bus port, when it is a cluster node.
    public let clusterBusPort: Int?
    /// Its working directory (removed by `stop()`).
    public let directory: URL
    private let process: ChildProcess

    /// The `redis-server` executable on PATH (or in /usr/bin), if installed.
    public static var executable: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/redis-server" } + ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether Redis tests should run: the server is installed, or `TANDEM_REQUIRE_REDIS` demands it
    /// (then a missing server fails the tests instead of skipping them; `scripts/test` sets it).
    public static var isEnabled: Bool {
        executable != nil || ProcessInfo.processInfo.environment["TANDEM_REQUIRE_REDIS"] != nil
    }

    private init(port: Int, clusterBusPort: Int?, directory: URL, process: ChildProcess) {
        self.port = port
        self.clusterBusPort = clusterBusPort
        self.directory = directory
        self.process = process
    }

    deinit {
        if process.isRunning { process.send(SIGKILL) }
    }

    /// Starts a server on `port` (a free one when nil) and returns once it accepts connections.
    /// - Parameters:
    ///   - directory: its working directory; a new temporary one when nil (pass the previous server's to
    ///     restart it on the same data).
    ///   - appendOnly: persist every write to an append-only file fsynced on every write (`appendfsync always`).
    ///   - clusterNode: start it as a Redis Cluster node (no slots and no peers yet: `RedisClusterProcess`
    ///     joins them), its cluster bus on `clusterBusPort` (another free port when nil), a peer that
    ///     does not answer for `nodeTimeout` taken as failed.
    /// - Throws: `RedisServerProcessError` when redis-server is missing or does not come up within `timeout`.
    public static func start(port: Int? = nil, directory: URL? = nil, appendOnly: Bool = false, clusterNode: Bool = false,
                             clusterBusPort: Int? = nil, nodeTimeout: Duration = .seconds(2),
                             timeout: Duration = .seconds(30)) async throws -> RedisServerProcess {
        guard let executable else { throw RedisServerProcessError.notInstalled }
        let ownDirectory = directory == nil
        let directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("tandem-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // A port found free can be taken by another test's server before this one binds it; this one then
        // exits, and when it picked the port itself it tries another.
        var attempt = 1
        while true {
            do {
                return try await launch(executable, port: try port ?? freeLoopbackPort(), directory: directory,
                                        appendOnly: appendOnly, clusterBusPort: clusterNode ? try clusterBusPort ?? freeLoopbackPort() : nil,
                                        nodeTimeout: nodeTimeout, timeout: timeout)
            } catch RedisServerProcessError.portTaken where port == nil && attempt < 5 {
                attempt += 1
            } catch {
                if ownDirectory { try? FileManager.default.removeItem(at: directory) }
                throw error
            }
        }
    }

    /// Runs redis-server on `port` and waits for its own log to say it is ready: another process accepting
    /// on the port must not pass for this one (its clients would share that server's data and see it die).
    private static func launch(_ executable: String, port: Int, directory: URL, appendOnly: Bool, clusterBusPort: Int?, nodeTimeout: Duration,
                               timeout: Duration) async throws -> RedisServerProcess {
        var arguments = [
            "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", appendOnly ? "yes" : "no",
            "--appendfsync", "always", "--dir", directory.path, "--logfile", directory.appendingPathComponent("redis.log").path,
        ]
        if let clusterBusPort {
            arguments += ["--cluster-enabled", "yes", "--cluster-port", "\(clusterBusPort)", "--cluster-config-file", "nodes-\(port).conf",
                          "--cluster-node-timeout", "\(nodeTimeout.components.seconds * 1_000 + nodeTimeout.components.attoseconds / 1_000_000_000_000_000)",
                          // A replica's first sync starts at once instead of waiting 5 s for others to join it.
                          "--repl-diskless-sync-delay", "0"]
        }
        let process = try ChildProcess(executable: executable, arguments: arguments)
        let server = RedisServerProcess(port: port, clusterBusPort: clusterBusPort, directory: directory, process: process)
        // Lines of this process only: a restart on the same directory appends to the previous one's log.
        let prefix = "\(process.processIdentifier):"
        func ownLog() -> String {
            let log = (try? String(contentsOf: directory.appendingPathComponent("redis.log"), encoding: .utf8)) ?? ""
            return log.split(separator: "\n").filter { $0.hasPrefix(prefix) }.joined(separator: "\n")
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while !ownLog().contains("Ready to accept connections") || !LoopbackPort.isAccepting(port) {
            guard process.isRunning, clock.now < deadline else {
                let log = ownLog()
                await server.stop(keepingData: true)
                if log.contains("Address already in use") { throw RedisServerProcessError.portTaken(port: port, log: String(log.suffix(2_000))) }
                throw RedisServerProcessError.didNotStart(port: port, log: String(log.suffix(2_000)))
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        return server
    }

    /// Kills the server (SIGKILL, like a crash), waits for it to exit (bounded), and removes its directory
    /// unless `keepingData`.
    public func stop(keepingData: Bool = false) async {
        process.send(SIGKILL)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(30))
        while process.isRunning, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        if !keepingData { try? FileManager.default.removeItem(at: directory) }
    }

    /// A port nobody listens on right now, found by binding port 0 on 127.0.0.1.
    public static func freeLoopbackPort() throws -> Int {
        try LoopbackPort.free()
    }
}

/// Why a test Redis server could not be started.
public enum RedisServerProcessError: Error, CustomStringConvertible {
    /// redis-server is not installed.
    case notInstalled
    /// The server did not accept connections in time.
    case didNotStart(port: Int, log: String)
    /// Another process listens on the port (retried with another port when the caller did not pick it).
    case portTaken(port: Int, log: String)

    public var description: String {
        switch self {
        case .notInstalled: "redis-server is not installed: run scripts/test (it installs the Debian package) or `apt-get install redis-server`"
        case .didNotStart(let port, let log): "redis-server did not accept connections on 127.0.0.1:\(port) in time; its log ends with:\n\(log)"
        case .portTaken(let port, let log): "another process listens on 127.0.0.1:\(port); redis-server's log ends with:\n\(log)"
        }
    }
}
