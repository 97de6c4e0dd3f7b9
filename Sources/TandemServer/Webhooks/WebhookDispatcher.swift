import TandemWire

/// Delivers queued events to every endpoint: one lane per endpoint and room, so a room's events arrive
/// in order (its next one waits for the one before it) while a slow or dead endpoint holds up only its
/// own lanes. A delivery leaves the queue once its endpoint answered 2xx, or once it is older than the
/// retry window (dropped and counted); anything else is tried again after the retry policy's wait.
///
/// Nothing here runs on the sync path: rooms hand events to a `WebhookEmitter`, which passes them on.
package actor WebhookDispatcher {
    /// What every delivery shares.
    package struct Settings: Sendable {
        /// The endpoints, each sent every event.
        package var endpoints: [String]
        /// The HMAC key of `Tandem-Signature`.
        package var secret: [UInt8]
        package var retry: WebhookRetryPolicy
        /// How long one try may take, connecting included.
        package var timeout: Duration
        /// Tries in flight to one endpoint at most (the other lanes wait their turn), so that thousands of
        /// rooms never open thousands of connections to a struggling receiver.
        package var maxConcurrentPerEndpoint: Int

        package init(endpoints: [String], secret: [UInt8], retry: WebhookRetryPolicy = WebhookRetryPolicy(), timeout: Duration = .seconds(5),
                     maxConcurrentPerEndpoint: Int = 32) {
            self.endpoints = endpoints
            self.secret = secret
            self.retry = retry
            self.timeout = timeout
            self.maxConcurrentPerEndpoint = max(1, maxConcurrentPerEndpoint)
        }
    }

    private struct Lane: Hashable {
        var endpoint: String
        var room: String
    }

    private let settings: Settings
    private let queue: any WebhookQueue
    private let transport: any WebhookTransport
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Int64
    private var random: RandomBytes
    private let metrics: ServerMetrics
    private let logger: Logger
    private var lanes: [Lane: [WebhookDelivery]] = [:]
    private var workers: [Lane: Task<Void, Never>] = [:]
    /// Tries in flight per endpoint, and the lanes waiting for a turn (in arrival order).
    private var inFlight: [String: Int] = [:]
    private var turns: [String: [CheckedContinuation<Void, Never>]] = [:]
    /// Callers of `drain` waiting for nothing to be pending.
    private var drained: [CheckedContinuation<Void, Never>] = []
    private var stopped = false
    /// Lanes get workers only from `start()` on, so what the queue held from before goes first.
    private var started = false

    /// - Parameters:
    ///   - clock: what waits between tries sleep on.
    ///   - now: unix ms, for due times and ages (they outlive the process, so they are wall-clock times).
    ///   - random: the jitter of the waits.
    ///   - resuming: what the queue held at start (`queue.pending()`), delivered first, each lane in its order.
    package init(settings: Settings, queue: any WebhookQueue, transport: any WebhookTransport, clock: any Clock<Duration> = ContinuousClock(),
                 now: @escaping @Sendable () -> Int64, random: any RandomByteSource = SecureRandom(), metrics: ServerMetrics, logger: Logger,
                 resuming: [WebhookDelivery] = []) {
        self.settings = settings
        self.queue = queue
        self.transport = transport
        self.clock = clock
        self.now = now
        self.random = RandomBytes(source: random)
        self.metrics = metrics
        self.logger = logger
        for delivery in resuming { lanes[Lane(endpoint: delivery.endpoint, room: delivery.room), default: []].append(delivery) }
        metrics.webhooksPending.set(resuming.count)
    }

    /// Starts delivering: what was resumed, each lane at its due time, and everything submitted since.
    package func start() {
        guard !started, !stopped else { return }
        started = true
        for lane in lanes.keys where workers[lane] == nil { workers[lane] = Task { await self.drain(lane) } }
    }

    /// Queues `events` for every endpoint, durably, then starts their lanes. Calls must not overlap
    /// (the emitter makes them one after the other), so that deliveries keep the events' order.
    /// - Throws: `WebhookQueueError` when the queue cannot be written (nothing of `events` was queued).
    package func submit(_ events: [WebhookEvent]) async throws(WebhookQueueError) {
        guard !stopped, !events.isEmpty else { return }
        let at = now()
        var deliveries: [WebhookDelivery] = []
        for event in events {
            let body = event.body
            for endpoint in settings.endpoints {
                deliveries.append(WebhookDelivery(endpoint: endpoint, room: event.room, eventID: event.id, body: body, created: event.time, due: at))
            }
        }
        accept(try await queue.add(deliveries))
    }

    /// Starts the lanes of deliveries already in the queue (made there by someone else, e.g. a
    /// cluster's lease holder turning events into deliveries), in `seq` order.
    package func accept(_ stored: [WebhookDelivery]) {
        guard !stopped, !stored.isEmpty else { return }
        metrics.webhooksQueued.increment(by: stored.count)
        metrics.webhooksPending.add(stored.count)
        for delivery in stored { enqueue(delivery) }
    }

    /// Deliveries waiting here (in flight included).
    package var pendingCount: Int { lanes.values.reduce(0) { $0 + $1.count } }

    /// Waits until nothing is pending or `timeout` passed (at shutdown: what was just emitted gets a
    /// chance to go before the process exits; an endpoint that is down costs the whole timeout).
    package func drain(within timeout: Duration) async {
        guard started, !stopped, pendingCount > 0 else { return }
        let clock = clock
        let timer = Task { [weak self] in
            try? await clock.sleep(for: timeout)
            await self?.endDrain()
        }
        await withCheckedContinuation { drained.append($0) }
        timer.cancel()
    }

    private func endDrain() {
        let waiting = drained
        drained.removeAll()
        for waiter in waiting { waiter.resume() }
    }

    /// Stops every lane; what is still queued stays in the queue for the next start.
    package func shutdown() async {
        stopped = true
        endDrain()
        for waiting in turns.values { for turn in waiting { turn.resume() } }
        turns.removeAll()
        let running = Array(workers.values)
        for worker in running { worker.cancel() }
        for worker in running { await worker.value }
        workers.removeAll()
        lanes.removeAll()
    }

    // MARK: - Lanes

    private func enqueue(_ delivery: WebhookDelivery) {
        let lane = Lane(endpoint: delivery.endpoint, room: delivery.room)
        lanes[lane, default: []].append(delivery)
        guard started, workers[lane] == nil, !stopped else { return }
        workers[lane] = Task { await self.drain(lane) }
    }

    /// Delivers the lane's deliveries one after the other until it is empty.
    private func drain(_ lane: Lane) async {
        while !Task.isCancelled, let delivery = lanes[lane]?.first {
            let wait = delivery.due - now()
            if wait > 0 {
                do {
                    try await clock.sleep(for: .milliseconds(wait))
                } catch {
                    return // cancelled: shutting down
                }
            }
            await takeTurn(delivery.endpoint)
            if Task.isCancelled || stopped { return }
            let result = await attempt(delivery)
            endTurn(delivery.endpoint)
            if Task.isCancelled { return }
            await settle(delivery, result, in: lane)
        }
        workers[lane] = nil
        if lanes[lane]?.isEmpty == true { lanes[lane] = nil }
    }

    private func takeTurn(_ endpoint: String) async {
        if inFlight[endpoint, default: 0] < settings.maxConcurrentPerEndpoint {
            inFlight[endpoint, default: 0] += 1
            return
        }
        // The turn is handed over by `endTurn` with the count unchanged.
        await withCheckedContinuation { turns[endpoint, default: []].append($0) }
    }

    private func endTurn(_ endpoint: String) {
        if var waiting = turns[endpoint], !waiting.isEmpty {
            let next = waiting.removeFirst()
            turns[endpoint] = waiting
            next.resume()
        } else {
            inFlight[endpoint, default: 1] -= 1
        }
    }

    private func attempt(_ delivery: WebhookDelivery) async -> WebhookTransportResult {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "User-Agent", value: "Tandem-Webhooks")
        headers.add(name: "Tandem-Event-Id", value: delivery.eventID)
        headers.add(name: WebhookSignature.header, value: WebhookSignature.sign(body: delivery.body, timestamp: now() / 1_000, secret: settings.secret))
        return await transport.post(url: delivery.endpoint, headers: headers, body: delivery.body, timeout: settings.timeout)
    }

    private func settle(_ delivery: WebhookDelivery, _ result: WebhookTransportResult, in lane: Lane) async {
        let at = now()
        if case .status(let status) = result, (200..<300).contains(status) {
            metrics.webhooksDelivered.increment()
            metrics.webhookLatency.observe(Double(max(0, at - delivery.created)) / 1_000)
            await finish(delivery, in: lane)
            return
        }
        let reason = switch result {
        case .status(let status): "HTTP \(status)"
        case .failed(let message): message
        }
        let failures = delivery.failures + 1
        let delay = settings.retry.delay(afterFailures: failures, using: &random)
        if at + delay - delivery.created > settings.retry.maxAge.totalMilliseconds {
            metrics.webhooksDropped.increment()
            logger.error("webhook.dropped", LogField("endpoint", Self.redacted(delivery.endpoint)), LogField("event", delivery.eventID),
                         LogField("tries", "\(failures)"), LogField("error", reason))
            await finish(delivery, in: lane)
            return
        }
        var retried = delivery
        retried.failures = failures
        retried.due = at + delay
        lanes[lane]?[0] = retried
        metrics.webhooksRetried.increment()
        logger.warning("webhook.retry", LogField("endpoint", Self.redacted(delivery.endpoint)), LogField("event", delivery.eventID),
                       LogField("tries", "\(failures)"), LogField("in_ms", "\(delay)"), LogField("error", reason))
        do throws(WebhookQueueError) {
            try await queue.reschedule(seq: delivery.seq, failures: failures, due: retried.due)
        } catch {
            // The try is still retried from memory; after a restart it would only come sooner.
            logger.error("webhook.queue_failed", LogField("error", error.description))
        }
    }

    /// An endpoint as logs show it: scheme, host, port and path, without credentials or query (where
    /// receivers often put a token).
    static func redacted(_ endpoint: String) -> String {
        var text = Substring(endpoint)
        if let query = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<query] }
        if let scheme = text.range(of: "://") {
            let authorityEnd = text[scheme.upperBound...].firstIndex(of: "/") ?? text.endIndex
            if let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@") {
                text = text[..<scheme.upperBound] + text[text.index(after: at)...]
            }
        }
        return String(text)
    }

    /// Takes the lane's first delivery off (in memory first: the lane's worker is the only one that
    /// removes, and it waits here), then out of the queue.
    private func finish(_ delivery: WebhookDelivery, in lane: Lane) async {
        if lanes[lane]?.isEmpty == false { lanes[lane]?.removeFirst() }
        metrics.webhooksPending.add(-1)
        if pendingCount == 0 { endDrain() }
        do throws(WebhookQueueError) {
            try await queue.remove(seq: delivery.seq)
        } catch {
            // Left in the queue, it is delivered again after a restart: at-least-once still holds.
            logger.error("webhook.queue_failed", LogField("error", error.description))
        }
    }
}

/// A `RandomNumberGenerator` over the server's injected random bytes.
struct RandomBytes: RandomNumberGenerator, Sendable {
    let source: any RandomByteSource

    mutating func next() -> UInt64 {
        source.bytes(count: 8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
