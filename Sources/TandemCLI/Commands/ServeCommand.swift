import Dispatch
import Foundation
import TandemSynchronization
import TandemProtocol
import TandemCluster
import TandemServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tandem serve`: runs the sync server until SIGINT or SIGTERM, then shuts down gracefully.
enum ServeCommand {
    /// The configuration a command line without options makes: every default the help prints comes from it.
    private static let defaults = ServerConfiguration.standard
    /// The log level without `--log-level`.
    private static let defaultLogLevel = "info"

    static let spec = CommandSpec(
        name: "serve",
        summary: "Run the Tandem sync server.",
        options: [
            .value("host", "HOST", help: "Address to listen on.", default: "\(defaults.host)"),
            .value("port", "PORT", help: "TCP port to listen on (0 picks a free one).", default: "\(defaults.port)"),
            .value("data", "DIR", help: "Data folder (storage, secret).", default: "\(defaults.dataDirectory)"),
            .value("rate-limit", "N", help: "Messages per second per connection; 0 turns the limit off.", default: "\(defaults.rateLimit)"),
            .value("rate-burst", "N", help: "Messages a connection may send in a burst.", default: "\(defaults.rateBurst)"),
            .value("max-message", "BYTES", help: "Largest WebSocket message.", default: "\(defaults.maxMessageBytes)"),
            .value("max-document", "BYTES", help: "Largest room document.", default: "\(defaults.maxDocumentBytes)"),
            .value("max-ops", "N", help: "Most ops in one patch.", default: "\(defaults.maxOpsPerPatch)"),
            .value("max-clients", "N", help: "Client ids per room whose last applied seq is remembered (exactly-once).", default: "\(defaults.maxTrackedClientsPerRoom)"),
            .value("client-ttl", "HOURS", help: "Hours a room remembers a client id it has not heard from.", default: "\(DurationUnit.hours.count(defaults.clientProgressTTL))"),
            .value("max-depth", "N", help: "Deepest nesting of a room document, presence and signal data (at most \(PatchLimits.deepestAllowed)).",
                   default: "\(defaults.maxDepth)"),
            .value("heartbeat", "MS", help: "Heartbeat interval announced to clients.", default: "\(DurationUnit.milliseconds.count(defaults.heartbeatInterval))"),
            .value("idle-timeout", "MS", help: "Close connections silent for this long.", default: "\(DurationUnit.milliseconds.count(defaults.idleTimeout))"),
            .value("presence-grace", "MS", help: "How long a dropped participant stays present.", default: "\(DurationUnit.milliseconds.count(defaults.presenceGrace))"),
            .value("history", "REVS", help: "Revisions kept per room for resume.", default: "\(defaults.historyWindow)"),
            .value("retain", "REVS", help: "Revisions of history kept per room in storage, for the rooms API (at least --history).", default: "\(defaults.retainedRevisions)"),
            .value("retain-days", "D", help: "Also drop history older than D days (never within --history)."),
            .value("max-participants", "N", help: "Most participants in one room.", default: "\(defaults.maxParticipantsPerRoom)"),
            .value("max-connections-per-user", "N", help: "Most connections one user may have in one room.", default: "\(defaults.maxConnectionsPerUser)"),
            .value("webhook", "URL", help: "POST room, participant and state events to this http:// or https:// URL (repeatable; see docs/OPERATIONS.md)."),
            .value("webhook-secret", "S", help: "Key of the Tandem-Signature header (default: the file webhook-secret in --data, created on first start)."),
            .value("webhook-ca", "FILE", help: "Also trust this PEM CA for https:// webhook endpoints (a private CA)."),
            .value("webhook-debounce", "MS", help: "At most one state.changed per room per this many ms.", default: "\(DurationUnit.milliseconds.count(defaults.webhookDebounce))"),
            .value("webhook-retry-base", "MS", help: "Bound of the first retry's wait; later waits double up to 10 minutes.", default: "\(DurationUnit.milliseconds.count(defaults.webhookRetryBase))"),
            .value("webhook-retry-hours", "H", help: "Hours an event is tried before it is dropped and counted.", default: "\(DurationUnit.hours.count(defaults.webhookRetryPeriod))"),
            .value("max-connections", "N", help: "Most open connections.", default: "\(defaults.maxConnections)"),
            .value("send-queue", "BYTES", help: "Bytes queued for one connection before it is closed as too slow.", default: "\(defaults.sendQueueLimitBytes)"),
            .value("allow-origin", "ORIGIN", help: "Only this browser Origin may connect (default: any)."),
            .value("public-url", "URL", help: "Origin guests open, for invitation links (e.g. https://cobrowse.example.com; default: the listening address)."),
            .value("invite-token-ttl", "SECONDS", help: "Lifetime of tokens minted for accepted invitations.", default: "\(DurationUnit.seconds.count(defaults.inviteTokenTTL))"),
            .value("invite-code-length", "DIGITS", help: "Digits of the invitation codes made (6 to 12).", default: "\(defaults.inviteCodeLength)"),
            .value("invite-creations-per-minute", "N", help: "Invitations one host may create per minute in a room (and all its hosts together).", default: "\(defaults.inviteCreationsPerMinute)"),
            .value("token-issuer", "ISS", help: "Refuse tokens whose iss claim is not ISS (default: any)."),
            .value("token-audience", "AUD", help: "Refuse tokens whose aud claim does not name AUD (default: any)."),
            .value("max-token-lifetime", "SECONDS", help: "Refuse tokens whose exp lies more than SECONDS ahead (default: no bound)."),
            .value("failed-accepts-per-address", "N", help: "Failed invitation accepts per address per minute before 429.", default: "\(defaults.failedAcceptsPerAddress)"),
            .value("failed-accepts-global", "N", help: "Failed invitation accepts per minute, all addresses, before 429.", default: "\(defaults.failedAcceptsGlobal)"),
            .value("tls-cert", "FILE", help: "Serve wss:// and https:// on the port with this PEM certificate chain (leaf first; needs --tls-key)."),
            .value("tls-key", "FILE", help: "The PEM private key of --tls-cert."),
            .value("hsts", "SECONDS", help: "With --tls-cert: every HTTPS response tells browsers to use only https:// for this host for SECONDS (Strict-Transport-Security)."),
            .flag("in-memory", help: "Keep rooms in memory only (acks are not durable; for benchmarks)."),
            .value("loops", "N", help: "Event-loop threads (default: one per core, less one for the storage writer unless --in-memory or --redis)."),
            .value("redis", "URL", help: "Cluster mode: share rooms with other nodes through this Redis (redis://HOST:PORT; see docs/CLUSTER.md; several with --redis-cluster)."),
            .flag("redis-cluster", help: "--redis names nodes of a Redis Cluster (sharded; several as redis://A:PORT,redis://B:PORT)."),
            .value("node-id", "ID", help: "This node's name in the cluster (default: random; needs --redis)."),
            .value("presence-ttl", "MS", help: "Cluster mode: how long a dead node's participants still appear elsewhere.", default: "\(DurationUnit.milliseconds.count(defaults.clusterPresenceTTL))"),
            .value("presence-interval", "MS", help: "Cluster mode: how often nodes exchange participants.", default: "\(DurationUnit.milliseconds.count(defaults.clusterPresenceInterval))"),
            .value("redis-commit-interval", "US", help: "Cluster mode: least time between two appends to Redis; patches that come meanwhile go together (0: at once).", default: "\(DurationUnit.microseconds.count(defaults.clusterCommitInterval))"),
            .value("log-level", "LEVEL", help: "debug, info, warning or error.", default: defaultLogLevel),
            .value("ready-file", "PATH", help: "Once serving, write {\"url\",\"http\",\"port\",\"pid\"} as JSON to PATH (atomically), for programs that start the server (e.g. with --port 0)."),
        ]
    )

    static let command = Command(spec: spec) { arguments, context in
        let configuration: ServerConfiguration
        let level: LogLevel
        do {
            configuration = try ServeCommand.configuration(from: arguments)
            level = try logLevel(from: arguments)
        } catch {
            context.console.err("tandem serve: error: \(error)")
            context.console.err(spec.usageLine)
            return ExitCode.usage
        }
        return await run(configuration, logLevel: level, readyFile: arguments.value("ready-file"), context: context)
    }

    /// The longest `--hsts` taken: ten years.
    static let longestHSTS = 10 * 365 * 86_400

    /// Whether `url` is a scheme, host and optional port (a trailing `/` allowed): invitation links are
    /// `<url>/#invite=CODE`, and the page at `/` loads its scripts and the WebSocket from the root, so a
    /// path, query or fragment would give guests a link that does not open the page.
    static func isPageOrigin(_ url: String) -> Bool {
        let lower = url.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lower.hasPrefix($0) }) else { return false }
        var authority = url.dropFirst(scheme.count)
        while authority.hasSuffix("/") { authority.removeLast() }
        return !authority.isEmpty && !authority.contains { "/?#@ \t".contains($0) }
    }

    /// The server configuration a command line asks for.
    static func configuration(from arguments: ParsedArguments) throws(CommandLineError) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.host = arguments.value("host") ?? configuration.host
        configuration.port = try arguments.integer("port", default: configuration.port, in: 0...65_535)
        configuration.dataDirectory = arguments.value("data") ?? configuration.dataDirectory
        configuration.rateLimit = try arguments.integer("rate-limit", default: configuration.rateLimit, in: 0...1_000_000)
        configuration.rateBurst = try arguments.integer("rate-burst", default: configuration.rateBurst, in: 1...1_000_000)
        configuration.maxMessageBytes = try arguments.integer("max-message", default: configuration.maxMessageBytes, in: 1024...(16 << 20))
        configuration.maxDocumentBytes = try arguments.integer("max-document", default: configuration.maxDocumentBytes, in: 2...(256 << 20))
        configuration.maxOpsPerPatch = try arguments.integer("max-ops", default: configuration.maxOpsPerPatch, in: 1...100_000)
        configuration.maxTrackedClientsPerRoom = try arguments.integer("max-clients", default: configuration.maxTrackedClientsPerRoom, in: 16...10_000_000)
        configuration.clientProgressTTL = try arguments.duration("client-ttl", in: .hours, default: configuration.clientProgressTTL, range: 1...87_600)
        configuration.maxDepth = try arguments.integer("max-depth", default: configuration.maxDepth, in: 1...PatchLimits.deepestAllowed)
        configuration.heartbeatInterval = try arguments.duration("heartbeat", in: .milliseconds, default: configuration.heartbeatInterval, range: 100...3_600_000)
        configuration.idleTimeout = try arguments.duration("idle-timeout", in: .milliseconds, default: configuration.idleTimeout, range: 100...86_400_000)
        configuration.presenceGrace = try arguments.duration("presence-grace", in: .milliseconds, default: configuration.presenceGrace, range: 0...3_600_000)
        configuration.historyWindow = try arguments.integer("history", default: configuration.historyWindow, in: 0...10_000_000)
        configuration.retainedRevisions = try arguments.integer("retain", default: configuration.retainedRevisions, in: 0...100_000_000)
        if arguments.value("retain-days") != nil {
            configuration.retainedAge = try arguments.duration("retain-days", in: .days, default: .zero, range: 1...36_500)
        }
        configuration.webhookURLs = arguments.all("webhook")
        for url in configuration.webhookURLs where !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            throw .invalidValue(option: "webhook", value: url, expected: "an http:// or https:// URL")
        }
        configuration.webhookSecret = arguments.value("webhook-secret")
        configuration.webhookCAFile = arguments.value("webhook-ca")
        configuration.webhookDebounce = try arguments.duration("webhook-debounce", in: .milliseconds, default: configuration.webhookDebounce, range: 0...3_600_000)
        configuration.webhookRetryBase = try arguments.duration("webhook-retry-base", in: .milliseconds, default: configuration.webhookRetryBase, range: 1...600_000)
        configuration.webhookRetryPeriod = try arguments.duration("webhook-retry-hours", in: .hours, default: configuration.webhookRetryPeriod, range: 1...720)
        configuration.maxParticipantsPerRoom = try arguments.integer("max-participants", default: configuration.maxParticipantsPerRoom, in: 1...100_000)
        configuration.maxConnectionsPerUser = try arguments.integer(
            "max-connections-per-user", default: configuration.maxConnectionsPerUser, in: 1...100_000)
        configuration.maxConnections = try arguments.integer("max-connections", default: configuration.maxConnections, in: 1...10_000_000)
        configuration.sendQueueLimitBytes = try arguments.integer("send-queue", default: configuration.sendQueueLimitBytes, in: 65_536...(1 << 30))
        if let origin = arguments.value("allow-origin") { configuration.allowedOrigins = [origin] }
        configuration.inMemoryStorage = arguments.flag("in-memory")
        if arguments.value("loops") != nil {
            configuration.eventLoopThreads = try arguments.integer("loops", default: 1, in: 1...1024)
        }
        configuration.redisCluster = arguments.flag("redis-cluster")
        if let url = arguments.value("redis") {
            let urls = url.split(separator: ",", omittingEmptySubsequences: false)
            guard urls.allSatisfy({ $0.hasPrefix("redis://") }) else {
                throw .invalidValue(option: "redis", value: url, expected: "a redis://HOST:PORT URL, such as redis://127.0.0.1:6379")
            }
            guard urls.count == 1 || configuration.redisCluster else {
                throw .invalidValue(option: "redis", value: url, expected: "one URL (several name the nodes of a Redis Cluster: add --redis-cluster)")
            }
            configuration.redisURL = url
        } else if configuration.redisCluster {
            throw .invalidValue(option: "redis-cluster", value: "", expected: "to be used together with --redis")
        }
        if let node = arguments.value("node-id") {
            guard configuration.redisURL != nil else {
                throw .invalidValue(option: "node-id", value: node, expected: "to be used together with --redis")
            }
            guard !node.isEmpty, node.utf8.count <= 64, !node.contains(where: { $0.isWhitespace }) else {
                throw .invalidValue(option: "node-id", value: node, expected: "1 to 64 bytes without spaces")
            }
            configuration.nodeID = node
        }
        configuration.clusterPresenceTTL = try arguments.duration(
            "presence-ttl", in: .milliseconds, default: configuration.clusterPresenceTTL, range: 1_000...3_600_000)
        configuration.clusterPresenceInterval = try arguments.duration(
            "presence-interval", in: .milliseconds, default: configuration.clusterPresenceInterval, range: 50...600_000)
        guard configuration.clusterPresenceInterval * 2 <= configuration.clusterPresenceTTL else {
            throw .invalidValue(option: "presence-interval", value: "\(DurationUnit.milliseconds.count(configuration.clusterPresenceInterval))",
                                expected: "at most half of --presence-ttl (\(DurationUnit.milliseconds.count(configuration.clusterPresenceTTL))), so entries are refreshed before they lapse")
        }
        configuration.clusterCommitInterval = try arguments.duration(
            "redis-commit-interval", in: .microseconds, default: configuration.clusterCommitInterval, range: 0...1_000_000)
        switch (arguments.value("tls-cert"), arguments.value("tls-key")) {
        case (nil, nil): break
        case (let chain?, let key?):
            configuration.tlsCertificatePath = chain
            configuration.tlsKeyPath = key
        case (let chain?, nil):
            throw .invalidValue(option: "tls-cert", value: chain, expected: "to be used together with --tls-key (the certificate's private key)")
        case (nil, let key?):
            throw .invalidValue(option: "tls-key", value: key, expected: "to be used together with --tls-cert (the certificate chain)")
        }
        if let maxAge = arguments.value("hsts") {
            guard configuration.servesTLS else {
                throw .invalidValue(option: "hsts", value: maxAge, expected: "to be used together with --tls-cert and --tls-key (browsers take HSTS over HTTPS only)")
            }
            configuration.hstsMaxAge = try arguments.duration("hsts", in: .seconds, default: .zero, range: 0...ServeCommand.longestHSTS)
        }
        if let url = arguments.value("public-url") {
            guard isPageOrigin(url) else {
                throw .invalidValue(option: "public-url", value: url,
                                    expected: "an http:// or https:// URL without a path, query or fragment, such as https://cobrowse.example.com")
            }
            configuration.publicURL = url
        }
        configuration.inviteTokenTTL = try arguments.duration("invite-token-ttl", in: .seconds, default: configuration.inviteTokenTTL, range: 60...(30 * 86_400))
        configuration.inviteCodeLength = try arguments.integer(
            "invite-code-length", default: configuration.inviteCodeLength, in: InvitationCode.lengths)
        configuration.inviteCreationsPerMinute = try arguments.integer(
            "invite-creations-per-minute", default: configuration.inviteCreationsPerMinute, in: 1...10_000)
        for (option, value) in [("token-issuer", arguments.value("token-issuer")), ("token-audience", arguments.value("token-audience"))] {
            if let value, value.isEmpty { throw .invalidValue(option: option, value: value, expected: "a non-empty string") }
        }
        configuration.tokenRequirements.issuer = arguments.value("token-issuer")
        configuration.tokenRequirements.audience = arguments.value("token-audience")
        if arguments.value("max-token-lifetime") != nil {
            configuration.tokenRequirements.maxLifetimeSeconds = Int64(try arguments.integer("max-token-lifetime", default: 0, in: 60...(366 * 86_400)))
        }
        configuration.failedAcceptsPerAddress = try arguments.integer(
            "failed-accepts-per-address", default: configuration.failedAcceptsPerAddress, in: 1...1_000_000)
        configuration.failedAcceptsGlobal = try arguments.integer("failed-accepts-global", default: configuration.failedAcceptsGlobal, in: 1...1_000_000)
        guard configuration.idleTimeout > configuration.heartbeatInterval else {
            throw .invalidValue(option: "idle-timeout", value: "\(DurationUnit.milliseconds.count(configuration.idleTimeout))",
                                expected: "more than the heartbeat interval (\(DurationUnit.milliseconds.count(configuration.heartbeatInterval)) ms)")
        }
        return configuration
    }

    static func logLevel(from arguments: ParsedArguments) throws(CommandLineError) -> LogLevel {
        switch try arguments.choice("log-level", default: defaultLogLevel, among: ["debug", "info", "warning", "error"]) {
        case "debug": .debug
        case "warning": .warning
        case "error": .error
        default: .info
        }
    }

    private static func run(_ configuration: ServerConfiguration, logLevel: LogLevel, readyFile: String?, context: CommandContext) async -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let server: SyncServer
        do {
            server = try SyncServer(configuration: configuration, sequencing: configuration.redisURL == nil ? .local : .cluster,
                                    environment: context.environment,
                                    logger: Logger(sink: StandardErrorLogSink(), level: logLevel))
        } catch {
            context.console.err("tandem serve: error: \(error)")
            return ExitCode.failure
        }
        do {
            try await server.checkCluster()
        } catch {
            context.console.err("tandem serve: error: \(error)")
            await server.shutdown()
            return ExitCode.failure
        }
        // Until here a signal ends the process at once (a slow start stays interruptible). From here on, before
        // the banner says the server is up, the first one is recorded and shuts the server down.
        let termination = TerminationSignals(onHangUp: {
            // SIGHUP: renewed certificates, read from the same files, for new connections.
            guard configuration.servesTLS else { return }
            do throws(ServerStartError) {
                try server.reloadCertificates()
                context.console.out("tandem serve: SIGHUP received, certificates reloaded from \(configuration.tlsCertificatePath ?? "")")
            } catch {
                context.console.err("tandem serve: SIGHUP received, but \(error); still serving the certificates loaded before")
            }
        })
        if let readyFile {
            do {
                try ready(server).write(to: URL(fileURLWithPath: readyFile), options: .atomic)
            } catch {
                context.console.err("tandem serve: error: cannot write --ready-file \(readyFile): \(error.localizedDescription)")
                await server.shutdown()
                return ExitCode.failure
            }
        }
        for line in banner(server) { context.console.out(line) }
        let signalName = await termination.first()
        context.console.out("tandem serve: \(signalName) received, shutting down")
        await server.shutdown()
        return ExitCode.success
    }

    /// What `--ready-file` holds once the server serves: its sync URL, HTTP base, port and process id, as JSON.
    static func ready(_ server: SyncServer) -> Data {
        let fields: JSONValue = .object([
            "url": .string(server.syncURL), "http": .string(server.baseURL), "port": .number(Double(server.port)),
            "pid": .number(Double(getpid())),
        ])
        return Data(fields.serializedBytes())
    }

    /// The start-up text: where the server listens, where its data is, and example tokens for
    /// a demo room (the only place a token is ever shown).
    static func banner(_ server: SyncServer) -> [String] {
        let configuration = server.configuration
        let http = server.baseURL
        var storage = configuration.inMemoryStorage ? "in memory (acks are not durable)" : "\(configuration.dataDirectory)/tandem.sqlite"
        if let redis = configuration.redisURL {
            storage = "rooms in \(redis) as node \(server.nodeID ?? "?"); invitations \(storage)"
        }
        let secret: String = switch server.secretSource {
        case .environment: "from TANDEM_SECRET"
        case .file(let path): path
        case .created(let path): "\(path) (created)"
        }
        let expiry = server.tokens.currentTime + 86_400
        let host_ = server.tokens.mint(TokenClaims(sub: "host", room: "demo", role: .host, exp: expiry, name: "Host"))
        let viewer = server.tokens.mint(TokenClaims(sub: "viewer", room: "demo", role: .viewer, exp: expiry, name: "Viewer"))
        return [
            "Tandem sync server",
            "  listening  \(server.syncURL)\(configuration.servesTLS ? " (TLS: \(configuration.tlsCertificatePath ?? ""))" : "")",
            "  storage    \(storage)",
            "  loops      \(server.eventLoopCount) event-loop thread\(server.eventLoopCount == 1 ? "" : "s")",
            "  secret     \(secret)",
            "  health     \(http)/healthz",
            "  metrics    \(http)/metrics",
            "",
            "Demo room \"demo\" (tokens valid for 24 hours):",
            "  host token    \(host_)",
            "  viewer token  \(viewer)",
            "",
            "Open in a browser (the token stays in the URL fragment, which is never sent to the server):",
            "  host    \(http)/#token=\(host_)",
            "  viewer  \(http)/#token=\(viewer)",
            "",
            "Join from a terminal:  tandem join --url \(server.syncURL) --token <host token>",
            "Stop with Ctrl-C (SIGINT) or SIGTERM: connections close with 1001 and storage is flushed.",
        ]
    }
}

/// Watches for SIGINT and SIGTERM from its creation on and remembers the first one, so that `first()` returns it
/// whether it arrived before or after the call; SIGHUP calls `onHangUp` each time instead.
///
/// A handler is installed with `signal(2)` in `init`, which takes effect at once: there is no moment in which
/// a signal is ignored or still handled by the default action. The handler only writes the signal's number
/// to a pipe (async-signal-safe); a thread of its own reads the pipe and records it, so a signal sent before
/// anyone waits stays in the pipe until it is read.
private final class TerminationSignals: Sendable {
    private struct State {
        var received: String?
        var waiter: CheckedContinuation<String, Never>?
    }

    private let state = Locked(State())

    /// Starts watching: the signals' default action (ending the process at once) is replaced by the record.
    init(onHangUp: @escaping @Sendable () -> Void) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            // No pipe, no watching: the signals keep their default action and end the process at once.
            return
        }
        terminationSignalPipe.store(ends[1], ordering: .sequentiallyConsistent)
        for number in [SIGINT, SIGTERM, SIGHUP] { signal(number, recordTerminationSignal) }
        let reader = ends[0]
        let thread = Thread { [self] in
            var byte: UInt8 = 0
            while true {
                let count = read(reader, &byte, 1)
                if count == 1 {
                    switch Int32(byte) {
                    case SIGHUP: onHangUp()
                    case SIGINT: self.receive("SIGINT")
                    default: self.receive("SIGTERM")
                    }
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
        thread.name = "tandem-signals"
        thread.start()
    }

    /// The name of the first signal received, once one is.
    func first() async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            if let received = register(continuation) { continuation.resume(returning: received) }
        }
    }

    /// Keeps `waiter` for the first signal, unless one was received already: then returns its name.
    private func register(_ waiter: CheckedContinuation<String, Never>) -> String? {
        state.withLock { state -> String? in
            if state.received == nil { state.waiter = waiter }
            return state.received
        }
    }

    private func receive(_ name: String) {
        let waiter = state.withLock { state -> CheckedContinuation<String, Never>? in
            guard state.received == nil else { return nil }
            state.received = name
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: name)
    }
}

/// The write end of the pipe the signal handler reports to. A signal handler is a C function without
/// context, so this one descriptor is process-wide state; only `TerminationSignals.init` sets it.
private let terminationSignalPipe = AtomicValue<Int32>(-1)

/// The signal handler: writes the signal's number to the pipe (write(2) is async-signal-safe).
private func recordTerminationSignal(_ number: Int32) {
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(terminationSignalPipe.load(ordering: .relaxed), &byte, 1)
}
