import TandemKit
import TandemWire

/// A Redis client that keeps one pipelined connection open and reopens it when it fails, waiting
/// between attempts by a `Backoff` (exponential, full jitter) on an injected clock.
///
/// Concurrent callers share the connection and one reconnect. A command that was never sent is retried
/// once on a fresh connection; a command whose connection died while it was in flight is not (it may
/// have been applied) and fails with `RedisError.connectionLost`. A `LOADING` reply (a restarted server
/// still reading its data) is retried with the same backoff. Blocking commands (`XREAD BLOCK`)
/// belong on a client of their own: they hold back every reply queued behind them.
package actor RedisClient: RedisCommandSending {
    /// How to reach the server and how hard to try.
    package struct Configuration: Sendable, Equatable {
        /// The server.
        package var endpoint: RedisEndpoint
        /// The bound on one TCP connect.
        package var connectTimeout: Duration
        /// Delays between failed connects.
        package var backoff: Backoff
        /// Connects tried for one command before it fails with `RedisError.unavailable`.
        package var maxConnectAttempts: Int
        /// Bounds on replies.
        package var limits: RESPLimits
        /// Whether each new connection first reads the server's `run_id` (`INFO server`), which
        /// `evaluate(_:keys:arguments:appendingServerRunID:)` then passes to scripts: a connection never
        /// outlives its server process, so a script learns which process runs it without asking.
        package var readsServerRunID = false

        /// The default delays between failed connects: 50 ms doubling to 5 s, full jitter.
        package static let defaultBackoff = Backoff(base: .milliseconds(50), cap: .seconds(5))

        /// Defaults: 5 s connect timeout, the default backoff, 8 attempts (about 6 s of waiting at most).
        package init(
            endpoint: RedisEndpoint,
            connectTimeout: Duration = .seconds(5),
            backoff: Backoff = Configuration.defaultBackoff,
            maxConnectAttempts: Int = 8,
            limits: RESPLimits = RESPLimits()
        ) {
            self.endpoint = endpoint
            self.connectTimeout = connectTimeout
            self.backoff = backoff
            self.maxConnectAttempts = max(1, maxConnectAttempts)
            self.limits = limits
        }
    }

    /// The settings this client was made with.
    package let configuration: Configuration
    private let group: EventLoopGroup
    private let clock: any Clock<Duration>
    private let random: any RandomByteSource
    private var connection: RedisConnection?
    private var connecting: Task<RedisConnection, any Error>?
    private var connectsMade = 0

    /// A client that connects lazily, on its first command.
    /// - Parameters:
    ///   - group: the event loops that carry the connection.
    ///   - clock: the clock the backoff sleeps on.
    ///   - random: the source of jitter.
    package init(
        configuration: Configuration,
        group: EventLoopGroup,
        clock: any Clock<Duration> = ContinuousClock(),
        random: any RandomByteSource = SecureRandom()
    ) {
        self.configuration = configuration
        self.group = group
        self.clock = clock
        self.random = random
    }

    /// How many connections this client has opened so far (a reconnect counts).
    package var connectionCount: Int { connectsMade }

    /// Sends one command and returns its reply (see the type's retry rule).
    /// - Throws: `RedisError`.
    package func send(_ command: [RedisArgument]) async throws(RedisError) -> RESPValue {
        try await withConnection { connection throws(RedisError) in try await connection.send(command) }
    }

    /// Sends `commands` in one pipeline; replies come back in the same order.
    /// - Throws: `RedisError` only when no connection could be opened; per-command failures are in the results.
    package func pipeline(_ commands: [[RedisArgument]]) async throws(RedisError) -> [Result<RESPValue, RedisError>] {
        let connection = try await currentConnection()
        let results = await connection.pipeline(commands)
        if !connection.isOpen { drop(connection) }
        return results
    }

    /// Runs `script` with `EVALSHA`; when the server does not have it cached (`NOSCRIPT`, e.g. after
    /// a restart or `SCRIPT FLUSH`), sends it once with `EVAL`, which also caches it. With
    /// `appendingServerRunID`, the `run_id` of the server process the connection goes to is one more
    /// argument (empty unless `Configuration.readsServerRunID`).
    /// - Throws: `RedisError`, including the script's own errors as `.server`.
    package func evaluate(_ script: RedisScript, keys: [String], arguments: [RedisArgument],
                          appendingServerRunID: Bool) async throws(RedisError) -> RESPValue {
        let head = [RedisArgument(Int64(keys.count))] + keys.map { RedisArgument($0) } + arguments
        return try await withConnection { connection throws(RedisError) in
            let tail = appendingServerRunID ? head + [RedisArgument(connection.serverRunID ?? "")] : head
            do throws(RedisError) {
                return try await connection.send(["EVALSHA", RedisArgument(script.sha1)] + tail)
            } catch {
                guard error.isNoScript else { throw error }
                return try await connection.send(["EVAL", RedisArgument(script.source)] + tail)
            }
        }
    }

    /// False: one server holds every key.
    package nonisolated var isSharded: Bool { false }

    /// This client's server, for each key.
    package func servers(for keys: [String]) -> [RedisEndpoint] {
        Array(repeating: configuration.endpoint, count: keys.count)
    }

    /// Opens a subscriber connection (sharded Pub/Sub) to `node` (this client's server), in one attempt:
    /// a subscriber's owner decides when to try again.
    /// - Throws: `RedisError.unavailable`.
    package func subscriber(at node: RedisEndpoint, receive: @escaping @Sendable (RedisSubscriber.Push) -> Void,
                            closed: @escaping @Sendable (RedisError) -> Void) async throws(RedisError) -> RedisSubscriber {
        try await RedisSubscriber.connect(to: node, on: group.next(), limits: configuration.limits,
                                          timeout: configuration.connectTimeout, receive: receive, closed: closed)
    }

    /// `[prefix]`: one server.
    package func shardKeys(prefix: String) -> [String] {
        [prefix]
    }

    /// Nothing to read: one server.
    package func refreshRouting() {}

    /// Closes the connection; the next command opens a new one.
    package func close() {
        connection?.close()
        connection = nil
    }

    // MARK: - Connection management

    private func withConnection(_ body: (RedisConnection) async throws(RedisError) -> RESPValue) async throws(RedisError) -> RESPValue {
        var attempt = 1
        while true {
            let connection = try await currentConnection()
            do {
                return try await body(connection)
            } catch .connectionClosed {
                // Not sent: safe to try once more on a new connection.
                drop(connection)
                return try await body(try await currentConnection())
            } catch {
                if !connection.isOpen { drop(connection) }
                // A restarted server answers LOADING until its data is back; the command did not run.
                guard error.isLoading, attempt < configuration.maxConnectAttempts else { throw error }
                do {
                    try await clock.sleep(for: configuration.backoff.delay(afterFailures: attempt, random: random))
                } catch {
                    throw .unavailable(endpoint: configuration.endpoint, attempts: attempt, lastError: "Redis is loading its dataset")
                }
                attempt += 1
            }
        }
    }

    private func drop(_ stale: RedisConnection) {
        if connection === stale { connection = nil }
    }

    private func currentConnection() async throws(RedisError) -> RedisConnection {
        if let connection, connection.isOpen { return connection }
        connection = nil
        let task: Task<RedisConnection, any Error>
        if let connecting {
            task = connecting
        } else {
            task = Task { try await self.connectWithBackoff() }
            connecting = task
        }
        do {
            let opened = try await task.value
            if connecting == task { connecting = nil }
            connection = opened
            return opened
        } catch {
            if connecting == task { connecting = nil }
            throw error as? RedisError ?? .unavailable(endpoint: configuration.endpoint, attempts: 0, lastError: "\(error)")
        }
    }

    private func connectWithBackoff() async throws(RedisError) -> RedisConnection {
        var lastError = ""
        for attempt in 1...configuration.maxConnectAttempts {
            do {
                let opened = try await RedisConnection.connect(
                    to: configuration.endpoint, on: group.next(), limits: configuration.limits, timeout: configuration.connectTimeout,
                    readsServerRunID: configuration.readsServerRunID)
                connectsMade += 1
                return opened
            } catch {
                lastError = error.description
            }
            guard attempt < configuration.maxConnectAttempts else { break }
            let delay = configuration.backoff.delay(afterFailures: attempt, random: random)
            do {
                try await clock.sleep(for: delay)
            } catch {
                break
            }
        }
        throw .unavailable(endpoint: configuration.endpoint, attempts: configuration.maxConnectAttempts, lastError: lastError)
    }
}
