import Foundation
import TandemProtocol
import TandemWire

/// A running Tandem sync server: storage, rooms, the WebSocket endpoint `/v1/sync`, the invitation and
/// host-control API (`/v1/invites…`, `/v1/rooms/{room}/remove`), and the operational endpoints `/healthz` and
/// `/metrics`.
///
/// Guarantees come from the parts it wires together: acks only after commit (`CommitQueue`),
/// one total order per room (`Room`), bounded per-connection queues (`WebSocketServer`).
/// `shutdown()` closes every connection with 1001 and flushes storage before returning.
public final class SyncServer: Sendable {
    /// The configuration the server runs with.
    public let configuration: ServerConfiguration
    /// The server's metrics, also served at `/metrics`.
    public let metrics: ServerMetrics
    /// Verifies (and, for `tandem token` and the start-up banner, mints) tokens with the server's secret.
    public let tokens: TokenVerifier
    /// Where the secret came from.
    public let secretSource: ServerSecret.Source
    private let group: EventLoopGroup
    private let webSockets: WebSocketServer
    private let commits: CommitQueue
    let registry: RoomRegistry
    private let sequencing: any SequencingService
    /// Webhooks, when the configuration names endpoints.
    private let webhooks: (any WebhookService)?
    private let logger: Logger
    /// Where the server listens (its port once bound).
    private let listening: ListeningAddress
    /// Keeps this node's removals equal to the cluster's (nil alone).
    private let removalMirror: Task<Void, Never>?
    /// What every connection's protocol session is given, socket or not.
    private let sessionContext: ServerSession.Context
    /// Connections without a socket (see `connectInProcess(sink:)`).
    private let inProcess = InProcessConnections()

    /// The port the server listens on (the real one when the configuration asked for 0).
    public var port: Int { webSockets.port }

    /// How many event-loop threads serve connections.
    public var eventLoopCount: Int { group.loops.count }

    /// Whether the server's event loops poll longer between events while busy (see
    /// `ServerConfiguration.loopsPollLongerWhenBusy(threads:cores:)`).
    public var eventLoopsPollLongerWhenBusy: Bool { group.loops.first?.pollsLongerWhenBusy ?? false }

    /// This node's name in the cluster; nil when the server runs alone.
    public var nodeID: String? { sequencing.nodeID }

    /// The WebSocket URL clients connect to (`wss://` when the port speaks TLS).
    public var syncURL: String {
        "\(configuration.servesTLS ? "wss" : "ws")://\(listening.authority)\(TandemProtocol.syncPath)"
    }

    /// The URL of the page, the invitation API and `/healthz` (`https://` when the port speaks TLS).
    public var baseURL: String { listening.baseURL }

    /// Starts a server: loads or creates the secret, opens storage, loads the stored invitations and deny
    /// entries, binds the port. `wallClock` (unix milliseconds) is the server's one wall clock: token expiry,
    /// invitations, deny entries (in the seconds JWT uses) and the time stored with each patch; `random` makes invitation codes and invited users' ids; `sequencing` says who gives the rooms
    /// their revs (a configuration with `redisURL` needs the cluster's, from the `TandemCluster` module);
    /// `scheduler`, when given, runs every timer of the protocol (a connection's `hello` deadline and token
    /// expiry, a room's presence grace; `ManualTimerScheduler` in tests); by default a socket's timers run on
    /// its own event loop and the rooms' on Dispatch.
    /// - Throws: `ServerStartError` naming what failed and how to fix it.
    public init(configuration: ServerConfiguration, sequencing choice: RoomSequencing = .local,
                environment: [String: String] = ProcessInfo.processInfo.environment,
                logger: Logger = Logger(sink: StandardErrorLogSink()), metrics: ServerMetrics = ServerMetrics(),
                wallClock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1_000) },
                random: any RandomByteSource = SecureRandom(),
                scheduler: (any TimerScheduler)? = nil) throws(ServerStartError) {
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        let tls = try Self.tlsContext(configuration)

        let secret: ServerSecret
        do {
            secret = try ServerSecret.load(environment: environment, dataDirectory: configuration.dataDirectory)
        } catch {
            throw .secret(error)
        }
        secretSource = secret.source
        let now: @Sendable () -> Int64 = { wallClock() / 1_000 }
        tokens = TokenVerifier(secret: secret.key, hmac: { Digest.hmacSHA256(key: $0, message: $1) }, now: now,
                               requirements: configuration.tokenRequirements)

        let store: any RoomStore
        if configuration.inMemoryStorage {
            store = InMemoryRoomStore()
        } else {
            do {
                try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                let folder = configuration.dataDirectory as NSString
                store = try JournaledRoomStore(
                    databasePath: folder.appendingPathComponent("tandem.sqlite"), journalFolder: folder.appendingPathComponent("journal"),
                    onMaterializeFailure: { error in logger.error("storage.materialize_failed", LogField("error", error.description)) })
            } catch let error as StorageError {
                throw .storage(error)
            } catch {
                throw .dataDirectory(configuration.dataDirectory, "\(error.localizedDescription)")
            }
        }
        // Read before the commit queue owns the store: the API answers from memory from the first request on.
        let storedInvites: [StoredInvite], storedDenials: [StoredDenial]
        do {
            storedInvites = try store.invites()
            storedDenials = try store.denials()
        } catch {
            throw .storage(error)
        }
        let book = InviteBook(invites: storedInvites, retention: configuration.inviteRetention.components.seconds)
        let denials = DenyList(storedDenials)
        let access = RoomAccess(removals: denials, now: now)
        let writes = WriteAllowance(rate: Double(configuration.rateLimit), burst: Double(configuration.rateBurst))
        let monotonicNow: @Sendable () -> Int64 = { [origin = ContinuousClock.now] in (ContinuousClock.now - origin).totalNanoseconds }
        // Both stores commit in microseconds without blocking (the journaled one appends a record), so the
        // loop that receives a patch commits it and sends its ack and fan-out in the same iteration.
        commits = CommitQueue(store: store, stages: EventLoopCommitStages()) { WakeupCoalescing.batch($0) }

        _ = try? FileDescriptorLimit.raiseSoftLimitToHard()
        let group: EventLoopGroup
        do {
            let cores = EventLoopGroup.defaultThreadCount
            let threads = configuration.eventLoopThreads
                ?? ServerConfiguration.defaultEventLoopThreads(cores: cores, durableStorage: configuration.storesDurably)
            group = try EventLoopGroup(
                threads: threads, pollsLongerWhenBusy: ServerConfiguration.loopsPollLongerWhenBusy(threads: threads, cores: cores))
        } catch {
            commits.shutdown()
            throw .eventLoops("\(error)")
        }
        self.group = group
        var roomSettings = RoomSettings(configuration)
        roomSettings.wallClock = wallClock
        let sequencing: any SequencingService
        do {
            sequencing = try choice.make(SequencingContext(configuration: configuration, group: group, commits: commits,
                                                                rooms: roomSettings, logger: logger))
        } catch {
            group.shutdown()
            commits.shutdown()
            throw error
        }
        self.sequencing = sequencing
        do throws(ServerStartError) {
            webhooks = try Self.webhooks(configuration, sequencing: sequencing, group: group, wallClock: wallClock, random: random,
                                         metrics: metrics, logger: logger)
        } catch {
            sequencing.cancel()
            group.shutdown()
            commits.shutdown()
            throw error
        }
        registry = RoomRegistry(sequencing: sequencing, scheduler: scheduler ?? DispatchTimerScheduler(), settings: roomSettings,
                                metrics: metrics, logger: logger, webhooks: webhooks?.reporter,
                                isDenied: { room, user in access.isRemoved(user, from: room) })

        var wire = WebSocketServerConfiguration()
        wire.errorBodies = .json
        wire.host = configuration.host
        wire.port = configuration.port
        wire.path = TandemProtocol.syncPath
        wire.subprotocols = [TandemProtocol.subprotocol]
        wire.allowedOrigins = configuration.allowedOrigins
        wire.maxMessageSize = configuration.maxMessageBytes
        wire.maxConnections = configuration.maxConnections
        wire.handshakeTimeout = configuration.handshakeTimeout
        wire.idleTimeout = configuration.idleTimeout
        wire.sendQueueLimit = configuration.sendQueueLimitBytes
        // A write of the rooms API is a patch message in an HTTP body.
        wire.maxBodyBytes = max(wire.maxBodyBytes, configuration.maxMessageBytes)
        wire.tls = tls
        wire.strictTransportSecurityMaxAge = configuration.hstsMaxAge.map { Int($0.components.seconds) }

        let context = ServerSession.Context(
            registry: registry, verifier: tokens, access: access, writes: writes, scheduler: scheduler ?? DispatchTimerScheduler(),
            timersOnConnectionLoops: scheduler == nil, configuration: configuration, metrics: metrics, logger: logger,
            monotonicNow: monotonicNow, wallClock: wallClock)
        sessionContext = context
        let routes = OperationsRoutes(metrics: metrics)
        listening = ListeningAddress(scheme: configuration.servesTLS ? "https" : "http", host: configuration.host, port: configuration.port)
        let invites = InviteRoutes(context: InviteRoutes.Context(
            book: book, denials: denials,
            throttle: AcceptThrottle(limits: .init(perAddress: configuration.failedAcceptsPerAddress, global: configuration.failedAcceptsGlobal)),
            creations: AcceptThrottle(limits: .init(perAddress: configuration.inviteCreationsPerMinute, global: .max)),
            tokens: tokens, access: access, commits: commits, registry: registry, metrics: metrics, logger: logger,
            configuration: configuration, now: now, random: random, sharedRemovals: sequencing.sharedRemovals, listening: listening,
            webhooks: webhooks?.reporter))
        let rooms = RoomRoutes(context: RoomRoutes.Context(
            tokens: tokens, access: access, writes: writes, monotonicNow: monotonicNow, commits: commits, registry: registry, rooms: roomSettings, configuration: configuration,
            shared: sequencing.sharedRooms))
        do {
            webSockets = try WebSocketServer.start(
                configuration: wire, group: group,
                handler: { request, responder in
                    if RoomRoutes.handles(request.path) {
                        rooms.handle(request, responder: responder)
                    } else if InviteRoutes.handles(request.path) {
                        invites.handle(request, responder: responder)
                    } else {
                        responder.respond(routes.respond(to: request) ?? PageRoutes.respond(to: request) ?? InviteAPIError.notFound.response)
                    }
                },
                accept: { connection, _ in SyncConnectionHandler(connection: connection, context: context) })
        } catch {
            // No room was opened yet: nothing of the sequencing needs finishing.
            sequencing.cancel()
            group.shutdown()
            commits.shutdown()
            throw .bind(host: configuration.host, port: configuration.port, "\(error)")
        }
        listening.bound(to: webSockets.port)
        let registry = registry
        if let shared = sequencing.sharedRemovals {
            removalMirror = Self.mirrorRemovals(shared, into: denials, registry: registry, logger: logger,
                                                every: configuration.clusterPresenceInterval)
        } else {
            removalMirror = nil
        }
        routes.markReady()
        if let webhooks { Task { await webhooks.start() } }
        logger.info("server.started", LogField("url", syncURL), LogField("data", configuration.inMemoryStorage ? "memory" : configuration.dataDirectory),
                    LogField("cluster", sequencing.summary))
    }

    /// Opens a connection that reaches the server without a socket: `sink` receives what the server sends
    /// (it must deliver in the order of the calls), and the returned connection takes the client's messages.
    /// Everything past the socket is the production path: the same session, rooms, limits and loops.
    /// Shutdown closes it with 1001. Nil once the server is shutting down.
    package func connectInProcess(sink: any SessionSink) -> InProcessConnection? {
        inProcess.accept(sink: sink, loop: group.next(), context: sessionContext)
    }

    /// In cluster mode, checks that Redis answers, so that a wrong `--redis` is reported at start rather
    /// than at the first join; does nothing for a server that runs alone. Call it once after `init`.
    /// - Throws: `ServerStartError.cluster` naming the address and what failed.
    public func checkCluster() async throws(ServerStartError) {
        try await sequencing.check()
    }

    /// `shutdown()` for async callers: the blocking work runs on its own thread, so no thread of
    /// Swift's cooperative pool waits while connections close.
    public func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                self.shutdown()
                continuation.resume()
            }
        }
    }

    /// Stops accepting, closes every connection with 1001, commits what is queued, stops the
    /// event loops. Blocking; call it once, not from an event-loop thread, and in cluster mode not from
    /// Swift's cooperative thread pool either (it waits for the Redis side to stop): use `shutdown() async`.
    public func shutdown() {
        logger.info("server.stopping")
        removalMirror?.cancel()
        inProcess.closeAll()
        webSockets.shutdown(code: CloseCode.goingAway.rawValue, reason: "server shutting down", timeout: .seconds(5))
        if let webhooks {
            // Whoever is still here is reported as left; every event emitted is in the queue before the loops
            // stop, and what is pending gets up to 2 s to go out (the rest waits in the queue for the next start).
            registry.reportShutdown()
            Self.blocking { await webhooks.stop(grace: .seconds(2)) }
        }
        if sequencing.nodeID != nil {
            let sequencing = sequencing
            Self.blocking { await sequencing.shutdown() }
        }
        commits.shutdown()
        group.shutdown()
        logger.info("server.stopped")
    }
}

extension SyncServer {
    /// Reads the cluster's removals every `interval` into `denials` and closes, on this node, the connections
    /// of users removed on another: a removal holds on every node within one interval.
    fileprivate static func mirrorRemovals(_ shared: any SharedRemovals, into denials: DenyList, registry: RoomRegistry, logger: Logger,
                                           every interval: Duration) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                do throws(SequencingError) {
                    for denial in denials.mirror(try await shared.all()) {
                        registry.loadedRoom(denial.room)?.removeUser(denial.user, reason: "a host removed you from room '\(denial.room)'")
                    }
                } catch {
                    logger.error("room.removals_unreadable", LogField("error", error.description))
                }
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Runs async work to its end from synchronous code that may block (shutdown, off the cooperative pool).
    fileprivate static func blocking(_ work: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await work()
            done.signal()
        }
        done.wait()
    }
}

/// Why the server could not start.
extension SyncServer {
    /// Reads the certificate chain and key again from the configured files (renewed certificates) and
    /// serves them to new connections; open connections keep theirs. Nothing changes when they cannot be
    /// loaded. Does nothing for a server without TLS.
    /// - Throws: `ServerStartError.tls` naming what could not be loaded.
    public func reloadCertificates() throws(ServerStartError) {
        guard let context = try Self.tlsContext(configuration) else { return }
        webSockets.replaceTLSContext(context)
    }

    /// The server's TLS context when the configuration asks for TLS.
    static func tlsContext(_ configuration: ServerConfiguration) throws(ServerStartError) -> TLSContext? {
        if let maxAge = configuration.hstsMaxAge, maxAge < .zero {
            throw .tls("the HSTS max-age (--hsts) is \(maxAge.components.seconds) seconds; give 0 or more (0 tells browsers to forget the host's HSTS)")
        }
        switch (configuration.tlsCertificatePath, configuration.tlsKeyPath) {
        case (nil, nil):
            guard configuration.hstsMaxAge == nil else {
                throw .tls("HSTS (--hsts) is sent over HTTPS only, and this server speaks plain HTTP: give --tls-cert and --tls-key, or drop --hsts")
            }
            return nil
        case (let chain?, let key?):
            do throws(TLSError) {
                return try TLSContext(.server(certificateChain: chain, privateKey: key))
            } catch {
                throw .tls(error.description)
            }
        default: throw .tls("a certificate and its key go together: give both --tls-cert and --tls-key")
        }
    }
}

public enum ServerStartError: Error, Sendable, CustomStringConvertible {
    /// The secret could not be read or created.
    case secret(ServerSecretError)
    /// The data folder could not be created.
    case dataDirectory(String, String)
    /// The database could not be opened.
    case storage(StorageError)
    /// The event-loop threads could not start.
    case eventLoops(String)
    /// The address could not be bound.
    case bind(host: String, port: Int, String)
    /// The cluster settings are unusable.
    case cluster(String)
    /// The TLS certificate or key cannot be used.
    case tls(String)
    /// The webhook secret or queue could not be loaded.
    case webhooks(String)

    /// A message that says what to do.
    public var description: String {
        switch self {
        case .secret(let error): "\(error)"
        case .dataDirectory(let path, let reason): "cannot create the data folder \(path): \(reason)"
        case .storage(let error): "\(error); check that the data folder is writable and not used by another server"
        case .eventLoops(let reason): "cannot start the event loops: \(reason)"
        case .bind(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason); is another process using the port? (try --port)"
        case .cluster(let reason): "cannot join the cluster: \(reason)"
        case .tls(let reason): "cannot serve TLS: \(reason)"
        case .webhooks(let reason): "cannot send webhooks: \(reason)"
        }
    }
}
