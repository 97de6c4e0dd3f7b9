import TandemSynchronization
import TandemProtocol
import TandemRedis
import TandemServer
import TandemWire

/// The webhooks of a cluster node: its rooms report facts to Redis (`ClusterWebhookReporter`), and
/// whichever node holds the delivery lease turns the decided events into deliveries and sends them
/// with the same dispatcher a single server uses, its queue in Redis. A holder that dies stops
/// renewing the lease; another node takes it within one lease TTL and resumes what was queued (a
/// delivery in flight at the crash is sent again: at-least-once, `id` de-duplicates).
///
/// The same loop keeps this node counted alive; when Redis says its entry lapsed and its members
/// were reported as left (a long partition), the node reports its participants as joined again.
final class ClusterWebhooks: WebhookService {
    /// How often and how long.
    struct Settings: Sendable {
        /// How long the lease and the node's entry live without a renewal (ms).
        var ttl: Int64
        /// How often the lease holder closes due windows, reaps dead nodes and takes events.
        var tick: Duration = .milliseconds(100)
    }

    private let courier: ClusterWebhookCourier
    private let loop = Locked<Task<Void, Never>?>(nil)
    private let clusterReporter: ClusterWebhookReporter
    private let client: any RedisCommandSending

    var reporter: any WebhookReporter { clusterReporter }

    /// - Parameter participants: who is connected to this node, per room (to report them again).
    init(client: any RedisCommandSending, nodeID: String, setup: WebhookSetup, settings: Settings,
         participants: @escaping @Sendable () -> [(room: String, participant: Participant)]) {
        self.client = client
        let log = RedisWebhookLog(client: client, debounce: setup.debounce.totalMilliseconds)
        let reporter = ClusterWebhookReporter(log: log, nodeID: nodeID, nodeTTL: settings.ttl, now: setup.wallClock, random: setup.random,
                                              logger: setup.logger)
        clusterReporter = reporter
        courier = ClusterWebhookCourier(log: log, nodeID: nodeID, setup: setup, settings: settings) {
            for (room, participant) in participants() { reporter.joined(room: room, participant, first: false) }
        }
    }

    func start() async {
        let courier = courier
        loop.withLock { task in
            guard task == nil else { return }
            task = Task {
                while !Task.isCancelled {
                    let wait = await courier.round()
                    guard wait > .zero else { continue }
                    try? await Task.sleep(for: wait)
                }
            }
        }
    }

    func stop(grace: Duration) async {
        await clusterReporter.close()
        let task = loop.withLock { $0 }
        task?.cancel()
        await task?.value
        await courier.finish(grace: grace)
        await client.close()
    }
}

/// The lease and the delivering of one node, one round at a time.
actor ClusterWebhookCourier {
    private let log: RedisWebhookLog
    private let nodeID: String
    private let setup: WebhookSetup
    private let settings: ClusterWebhooks.Settings
    private let reportAgain: @Sendable () -> Void
    /// This node's lease token (fresh per start: a restarted node never mistakes an old lease for its own).
    private let token: String
    private var dispatcher: WebhookDispatcher?
    private var renewedAt: Int64 = 0
    private var heartbeatAt: Int64?

    init(log: RedisWebhookLog, nodeID: String, setup: WebhookSetup, settings: ClusterWebhooks.Settings, reportAgain: @escaping @Sendable () -> Void) {
        self.log = log
        self.nodeID = nodeID
        self.setup = setup
        self.settings = settings
        self.reportAgain = reportAgain
        token = "\(nodeID):" + Hex.lowercase(setup.random.bytes(count: 8))
    }

    /// One round: the node's heartbeat when due, the lease taken or renewed, and as the holder what is
    /// due. Returns how long to wait before the next one (zero: events are still waiting).
    func round() async -> Duration {
        let now = setup.wallClock()
        if heartbeatAt.map({ now - $0 >= settings.ttl / 3 }) ?? true {
            do throws(RedisError) {
                if try await !log.heartbeat(node: nodeID, expiry: now + settings.ttl) { reportAgain() }
                heartbeatAt = now
            } catch {
                setup.logger.warning("webhook.heartbeat_failed", LogField("error", error.description))
            }
        }
        if dispatcher == nil { await takeLease(now: now) }
        guard let dispatcher else { return .milliseconds(max(settings.tick.totalMilliseconds, settings.ttl / 5)) }
        do throws(RedisError) {
            guard let taken = try await log.tick(token: token, now: now, leaseTTL: settings.ttl, idPrefix: Hex.lowercase(setup.random.bytes(count: 10)),
                                                 endpoints: setup.settings.endpoints) else {
                setup.logger.warning("webhook.lease_lost", LogField("node", nodeID))
                await stopDelivering()
                return settings.tick
            }
            renewedAt = now
            await dispatcher.accept(taken.deliveries)
            return taken.more ? .zero : settings.tick
        } catch {
            setup.logger.warning("webhook.tick_failed", LogField("error", error.description))
            // Another node may take the lease once it lapses: stop before that can happen.
            if now - renewedAt > settings.ttl * 2 / 3 { await stopDelivering() }
            return settings.tick
        }
    }

    /// At shutdown: takes what this node just reported (its leaves), gives deliveries `grace`, and
    /// hands the lease over at once.
    func finish(grace: Duration) async {
        if dispatcher != nil { _ = await round() }
        if let dispatcher {
            await dispatcher.drain(within: grace)
            await stopDelivering()
            try? await log.release(token: token)
        }
        try? await log.forget(node: nodeID)
    }

    private func takeLease(now: Int64) async {
        do throws(RedisError) {
            guard try await log.acquire(token: token, ttl: settings.ttl) else { return }
            let pending = try await log.pending()
            renewedAt = now
            let dispatcher = WebhookDispatcher(settings: setup.settings, queue: RedisWebhookQueue(log: log), transport: setup.transport,
                                               now: setup.wallClock, random: setup.random, metrics: setup.metrics, logger: setup.logger,
                                               resuming: pending)
            self.dispatcher = dispatcher
            await dispatcher.start()
            setup.logger.info("webhook.delivering", LogField("node", nodeID), LogField("pending", "\(pending.count)"))
        } catch {
            setup.logger.warning("webhook.lease_failed", LogField("error", error.description))
        }
    }

    private func stopDelivering() async {
        await dispatcher?.shutdown()
        dispatcher = nil
    }
}
