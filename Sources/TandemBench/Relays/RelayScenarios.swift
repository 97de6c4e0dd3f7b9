import TandemWire

/// The scenarios of the relay benchmark, each against one running server.
enum RelayScenarios {
    /// (a) Delivered messages per second with every client keeping `window` messages in flight.
    struct Peak: Sendable {
        var messagesPerSecond: Double
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        /// Deliveries still missing after the load stopped and the server had time to drain.
        var lost: Int
        /// CPU used over the window, in cores (1.0 = one core busy), server and load generator.
        var serverCores: Double
        var loadCores: Double
        /// The part of `serverCores` that Redis used (cluster deployments only).
        var redisCores: Double? = nil
        /// Order and ack checks of the Tandem output (all zero for relays, which are not checked).
        var audit = DeliveryAudit()
        /// Cluster deployments only: deliveries that never arrived, even after `Sizes.clusterDrain` (a backlog
        /// that drains late shows in `lost`, not here).
        var neverDelivered: Int? = nil
        /// Cluster deployments only: what Redis did over the window.
        var redisWork: RedisWork? = nil

        /// Server CPU time per delivered message in microseconds: less sensitive to a busy machine than the rate,
        /// since it does not count the time the server waited for a core.
        var serverMicrosecondsPerDelivery: Double { messagesPerSecond > 0 ? serverCores / messagesPerSecond * 1e6 : 0 }
    }

    /// (b) Latency and loss at a fixed send rate.
    struct FixedRate: Sendable {
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        var lost: Int
        var expected: Int
        var serverCores: Double
        var loadCores: Double
        /// The part of `serverCores` that Redis used (cluster deployments only).
        var redisCores: Double? = nil
        /// Order and ack checks of the Tandem output.
        var audit = DeliveryAudit()
        /// Cluster deployments only: deliveries that never arrived, even after `Sizes.clusterDrain`.
        var neverDelivered: Int? = nil
        /// The share of the machine's CPU time the hypervisor gave to other guests while the messages were sent
        /// (nil where `/proc/stat` has no steal figure): a high share means the tail measures the host.
        var hostSteal: Double? = nil
        /// Runs of (b) it took to get this one (`HostStealRule`).
        var attempts = 1
    }

    /// (c) Server memory per idle connection.
    struct Idle: Sendable {
        var bytesPerConnection: Double
        var held: Int
    }

    /// (d) Time for every client of a dropped set to be welcomed back, and how many got a snapshot.
    struct ResumeStorm: Sendable {
        var seconds: Double
        var snapshots: Int
        var clients: Int
        /// The server's CPU time per resumed client (connect, TLS handshake when it speaks TLS, hello, replay), µs.
        var serverMicrosecondsPerResume: Double = 0
        /// Order and ack checks of the Tandem output, before and after the storm.
        var audit = DeliveryAudit()
    }

    /// The sizes of the scenarios; the defaults are the ones the relay targets are stated for.
    struct Sizes: Sendable {
        var peakRooms = 10
        var peakRoomSize = 10
        var window = 16
        var messageSize = 128
        var warmup: Duration = .seconds(1)
        var measure: Duration = .seconds(4)
        var rateRooms = 100
        var rateRoomSize = 4
        var messagesPerSecond = 20
        var idleConnections = 10_000
        var stormClients = 1_000
        /// How long a cluster deployment may take to drain a backlog before a missing delivery or ack counts as
        /// never delivered (a bug) rather than late (overload).
        var clusterDrain: Duration = .seconds(30)
    }

    /// CPU seconds of the server (all its processes), of its Redis and of this process from one instant, to turn
    /// into cores over a window.
    struct CPUWindow {
        let server: RelayDeployment
        let serverStart: Double
        let redisStart: Double?
        let redisCallsStart: [String: Int]?
        let ownStart: Double
        let wallStart: Int
        let hostStart: (total: Int, stolen: Int)?

        init(_ server: RelayDeployment) {
            self.server = server
            serverStart = server.cpuSeconds
            redisStart = server.redisCPUSeconds
            redisCallsStart = server.redisCommandCalls()
            ownStart = LoadStatistics.ownCPUSeconds()
            wallStart = LoadStatistics.nowNanoseconds()
            hostStart = LoadStatistics.hostCPUTicks()
        }

        /// The share of the machine's CPU time stolen by the hypervisor since the window started.
        func hostSteal() -> Double? {
            LoadStatistics.stolenShare(from: hostStart, to: LoadStatistics.hostCPUTicks())
        }

        func cores() -> (server: Double, load: Double, redis: Double?) {
            let wall = Double(LoadStatistics.nowNanoseconds() - wallStart) / 1e9
            let redis = redisStart.flatMap { start in server.redisCPUSeconds.map { ($0 - start) / wall } }
            return ((server.cpuSeconds - serverStart) / wall, (LoadStatistics.ownCPUSeconds() - ownStart) / wall, redis)
        }

        /// Redis's work since the window started (read after `cores()`, so the query does not count as load).
        func redisWork() -> RedisWork? {
            redisCallsStart == nil ? nil : RedisWork(from: redisCallsStart, to: server.redisCommandCalls())
        }
    }

    /// The session's audit once it drained: patches sent but never acked count as lost acks (Tandem only).
    private static func finalAudit(_ session: LoadSession) async throws -> DeliveryAudit {
        try await session.loop.submit {
            var audit = session.audit
            if session.server.kind.speaksTandem { audit.lostAcks = max(0, session.sent - session.acks) }
            return audit
        }
    }

    static func peak(_ server: RelayDeployment, loop: EventLoop, secret: [UInt8], tag: String, sizes: Sizes) async throws -> Peak {
        let session = LoadSession(
            loop: loop, server: server, tag: tag, rooms: sizes.peakRooms, roomSize: sizes.peakRoomSize,
            messageSize: sizes.messageSize, secret: secret)
        try await session.connectAll(concurrency: 100, resume: false)
        try await loop.submit {
            session.closedLoop = true
            for client in session.clients {
                for _ in 0..<sizes.window { session.send(from: client) }
            }
        }
        try await Task.sleep(for: sizes.warmup)
        let cpu = CPUWindow(server)
        let (delivered0, start) = try await loop.submit {
            session.recordLatency = true
            return (session.delivered, LoadStatistics.nowNanoseconds())
        }
        try await Task.sleep(for: sizes.measure)
        let (delivered1, end, latencies) = try await loop.submit {
            session.recordLatency = false
            session.closedLoop = false
            let samples = session.latencies
            session.latencies = []
            return (session.delivered, LoadStatistics.nowNanoseconds(), samples)
        }
        let cores = cpu.cores()
        let redisWork = cpu.redisWork()
        let acked = !server.kind.speaksTandem
        try? await session.waitUntil(timeout: .seconds(5), "the last messages") {
            $0.clients.allSatisfy { $0.outstanding == 0 } && (acked || $0.acks >= $0.sent)
        }
        let lost = try await loop.submit { session.clients.reduce(0) { $0 + $1.remaining.values.reduce(0, +) } }
        var neverDelivered: Int?
        if server.kind.isCluster {
            try? await session.waitUntil(timeout: sizes.clusterDrain, "the backlog") {
                $0.clients.allSatisfy { $0.outstanding == 0 } && $0.acks >= $0.sent
            }
            neverDelivered = try await loop.submit { session.clients.reduce(0) { $0 + $1.remaining.values.reduce(0, +) } }
        }
        let audit = try await finalAudit(session)
        try await session.abortAll()
        let sorted = latencies.sorted()
        return Peak(
            messagesPerSecond: Double(delivered1 - delivered0) / (Double(end - start) / 1e9),
            p50Milliseconds: milliseconds(LoadStatistics.percentile(0.5, ofSorted: sorted)),
            p99Milliseconds: milliseconds(LoadStatistics.percentile(0.99, ofSorted: sorted)),
            lost: lost, serverCores: cores.server, loadCores: cores.load, redisCores: cores.redis, audit: audit, neverDelivered: neverDelivered,
            redisWork: redisWork)
    }

    static func fixedRate(_ server: RelayDeployment, loop: EventLoop, secret: [UInt8], tag: String, sizes: Sizes) async throws -> FixedRate {
        let session = LoadSession(
            loop: loop, server: server, tag: tag, rooms: sizes.rateRooms, roomSize: sizes.rateRoomSize,
            messageSize: sizes.messageSize, secret: secret)
        try await session.connectAll(concurrency: 100, resume: false)
        let period = 1_000_000_000 / sizes.messagesPerSecond
        let perClient = Int(Double(sizes.messagesPerSecond) * Double(sizes.measure.components.seconds))
        let total = perClient * session.clients.count
        let cpu = CPUWindow(server)
        try await loop.submit {
            session.recordLatency = true
            let first = LoadStatistics.nowNanoseconds() + 20_000_000
            let count = session.clients.count
            for (position, client) in session.clients.enumerated() {
                // Spread the clients evenly over one period so the load is smooth, not 400 messages at once.
                session.sendPaced(client, remaining: perClient, at: first + period * position / count, period: period)
            }
        }
        try await session.waitUntil(timeout: sizes.measure + .seconds(30), "the paced sends") { $0.sent >= total }
        let cores = cpu.cores()
        let steal = cpu.hostSteal()
        let expected = total * (sizes.rateRoomSize - 1)
        let acked = !server.kind.speaksTandem
        try? await session.waitUntil(timeout: .seconds(3), "the last deliveries") { $0.delivered >= expected && (acked || $0.acks >= total) }
        let (delivered, latencies) = try await loop.submit {
            session.recordLatency = false
            return (session.delivered, session.latencies)
        }
        var neverDelivered: Int?
        if server.kind.isCluster {
            try? await session.waitUntil(timeout: sizes.clusterDrain, "the backlog") { $0.delivered >= expected && $0.acks >= total }
            neverDelivered = try await loop.submit { max(0, expected - session.delivered) }
        }
        let audit = try await finalAudit(session)
        try await session.abortAll()
        let sorted = latencies.sorted()
        return FixedRate(
            p50Milliseconds: milliseconds(LoadStatistics.percentile(0.5, ofSorted: sorted)),
            p99Milliseconds: milliseconds(LoadStatistics.percentile(0.99, ofSorted: sorted)),
            lost: max(0, expected - delivered), expected: expected, serverCores: cores.server, loadCores: cores.load,
            redisCores: cores.redis, audit: audit, neverDelivered: neverDelivered, hostSteal: steal)
    }

    static func idle(_ server: RelayDeployment, loop: EventLoop, secret: [UInt8], tag: String, sizes: Sizes) async throws -> Idle {
        let session = LoadSession(
            loop: loop, server: server, tag: tag, rooms: sizes.idleConnections / 10, roomSize: 10,
            messageSize: sizes.messageSize, secret: secret)
        try await Task.sleep(for: .milliseconds(300))
        let before = server.residentBytes
        try await session.connectAll(concurrency: 200, resume: false)
        try await Task.sleep(for: .seconds(1))
        let after = server.residentBytes
        let dropped = try await loop.submit { session.closes.values.reduce(0, +) }
        try await session.abortAll()
        let held = session.clients.count - dropped
        return Idle(bytesPerConnection: Double(after - before) / Double(max(held, 1)), held: held)
    }

    static func resumeStorm(_ server: RelayDeployment, loop: EventLoop, secret: [UInt8], tag: String, sizes: Sizes) async throws -> ResumeStorm {
        let session = LoadSession(
            loop: loop, server: server, tag: tag, rooms: sizes.stormClients / 10, roomSize: 10,
            messageSize: sizes.messageSize, secret: secret)
        try await session.connectAll(concurrency: 100, resume: false)
        let count = session.clients.count
        try await loop.submit {
            for client in session.clients { session.send(from: client) }
        }
        try await session.waitUntil(timeout: .seconds(60), "the acks before the storm") { $0.acks >= count && $0.delivered >= count * 9 }
        let serverBefore = server.cpuSeconds
        let start = try await loop.submit {
            session.welcomes = 0
            session.snapshots = 0
            for client in session.clients { client.connection?.abort() }
            return LoadStatistics.nowNanoseconds()
        }
        try await session.connectAll(concurrency: 250, resume: true)
        let serverCPU = server.cpuSeconds - serverBefore
        let (last, snapshots) = try await loop.submit { (session.lastWelcomeNanos, session.snapshots) }
        let audit = try await finalAudit(session)
        try await session.abortAll()
        return ResumeStorm(seconds: Double(last - start) / 1e9, snapshots: snapshots, clients: count,
                           serverMicrosecondsPerResume: serverCPU * 1e6 / Double(max(count, 1)), audit: audit)
    }

    static func milliseconds(_ nanoseconds: Int?) -> Double {
        Double(nanoseconds ?? 0) / 1e6
    }
}

extension LoadSession {
    /// Sends `remaining` messages from `client`, the first at `due` (monotonic ns) and then one per `period`,
    /// on absolute deadlines so a late timer does not shift the ones after it.
    func sendPaced(_ client: LoadClient, remaining: Int, at due: Int, period: Int) {
        guard remaining > 0 else { return }
        let delay = max(0, due - LoadStatistics.nowNanoseconds())
        loop.schedule(after: .nanoseconds(delay)) {
            self.send(from: client)
            self.sendPaced(client, remaining: remaining - 1, at: due + period, period: period)
        }
    }
}
