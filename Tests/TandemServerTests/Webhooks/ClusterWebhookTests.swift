import Foundation
import Synchronization
import Testing
import TandemProtocol
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// Webhooks of a cluster: nodes on one Redis decide each event once for the whole cluster and one of
/// them delivers it; a delivering node killed with SIGKILL hands over to another, which resumes the
/// queue and reports the dead node's participants as left.
@Suite(.enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct ClusterWebhookTests {
    static let secret = "whsec_cluster"

    static func webhooks(_ receiver: String) -> (inout ServerConfiguration) -> Void {
        { configuration in
            configuration.webhookURLs = [receiver]
            configuration.webhookSecret = secret
            configuration.webhookDebounce = .milliseconds(300)
            configuration.webhookRetryBase = .milliseconds(50)
            configuration.clusterPresenceTTL = .milliseconds(1_500)
            configuration.clusterPresenceInterval = .milliseconds(100)
        }
    }

    /// The next event's type and client (or rev), after checking its signature.
    static func next(_ receiver: WebhookReceiver, sourceLocation: SourceLocation = #_sourceLocation) async -> (line: String, id: String)? {
        guard let request = await receiver.next(timeout: .seconds(30)), let event = request.json,
              let type = event["type"]?.stringValue, let id = event["id"]?.stringValue else { return nil }
        let signature = request.headers[WebhookSignature.header] ?? ""
        #expect(WebhookSignature.verify(signature, body: request.body, secret: Array(secret.utf8), now: Int64(Date().timeIntervalSince1970)),
                sourceLocation: sourceLocation)
        #expect(event["room"] == "lobby", sourceLocation: sourceLocation)
        var line = type
        if let client = event["client"]?.stringValue { line += " \(client)" }
        if let rev = event["rev"]?.doubleValue { line += " \(Int(rev)) \(event["paths"].map { "\($0)" } ?? "")" }
        return (line, id)
    }

    static func lines(_ receiver: WebhookReceiver, count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> [(line: String, id: String)] {
        var events: [(line: String, id: String)] = []
        while events.count < count, let event = await next(receiver, sourceLocation: sourceLocation) { events.append(event) }
        return events
    }

    /// Runs `body` with what points a node at a fresh Redis: one server, or a 3-shard Redis Cluster.
    static func withRedis(sharded: Bool, _ body: (@escaping @Sendable (inout ServerConfiguration) -> Void) async throws -> Void) async throws {
        if sharded {
            try await RedisClusterProcess.with { cluster, _ in
                let urls = cluster.urls
                try await body { $0.redisURL = urls; $0.redisCluster = true }
            }
            return
        }
        let redis = try await RedisServerProcess.start()
        let url = "redis://127.0.0.1:\(redis.port)"
        do {
            try await body { $0.redisURL = url }
        } catch {
            await redis.stop()
            throw error
        }
        await redis.stop()
    }

    @Test("two nodes, one session: started once, each join and leave once, changes made through both nodes in one state.changed, ended once; on one Redis and on a Redis Cluster",
          arguments: [false, true])
    func oneSessionAcrossTwoNodes(sharded: Bool) async throws {
        try await Self.withRedis(sharded: sharded) { redis in
            let group = try EventLoopGroup(threads: 1)
            let receiver = try WebhookReceiver(group: group)
            let settings = Self.webhooks(receiver.url)
            // The two changes below go through different nodes; on a busy machine the second can take longer
            // than a short debounce to be applied, and two state.changed would be right. A window well above
            // that delay makes "both in one event" the only right outcome.
            let debounced: (inout ServerConfiguration) -> Void = { settings(&$0); redis(&$0); $0.webhookDebounce = .milliseconds(2_000) }
            let a = try ClusterServerTests.startNode(redisPort: 0, debounced)
            let b = try ClusterServerTests.startNode(redisPort: 0, debounced)

            let (alice, _) = try await ClusterServerTests.join(a.syncURL, user: "alice", client: "a1", loop: group.next())
            #expect(await Self.lines(receiver, count: 2).map(\.line) == ["room.started", "participant.joined a1"])
            let (bob, _) = try await ClusterServerTests.join(b.syncURL, user: "bob", client: "b1", loop: group.next())
            #expect(await Self.lines(receiver, count: 1).map(\.line) == ["participant.joined b1"])
            try await alice.send(.patch(seq: 1, ops: ClusterServerTests.set("one", 1)))
            try await bob.send(.patch(seq: 1, ops: ClusterServerTests.set("two", 2)))
            #expect(await ClusterServerTests.revs(alice, count: 2) == [1, 2])
            #expect(await Self.lines(receiver, count: 1).map(\.line) == [#"state.changed 2 ["/one","/two"]"#])
            await bob.socket.close()
            #expect(await Self.lines(receiver, count: 1).map(\.line) == ["participant.left b1"])
            await alice.socket.close()
            let end = await Self.lines(receiver, count: 2)
            #expect(end.map(\.line) == ["participant.left a1", "room.ended"])
            #expect(await receiver.next(timeout: .milliseconds(700)) == nil, "each event is delivered by one node only")

            await a.shutdown()
            await b.shutdown()
            receiver.stop()
            await ClusterServerTests.shutDown(group)
        }
    }

    @Test("the delivering node killed with SIGKILL while the endpoint is down: another node takes over, delivers everything queued in order and reports the dead node's participant as left")
    func aKilledDeliveringNodeHandsOver() async throws {
        let redis = try await RedisServerProcess.start()
        let group = try EventLoopGroup(threads: 1)
        let accepting = Atomic<Bool>(false)
        let receiver = try WebhookReceiver(group: group) { _ in accepting.load(ordering: .acquiring) ? 200 : 500 }
        // Alone at first, the process holds the lease: the 500s it gets prove it delivers.
        let (victim, victimURL) = try await CrashDurabilityTests.offload {
            try CrashDurabilityTests.serve(data: SyncServerTests.temporaryDirectory(), secret: ClusterServerTests.secret,
                                           extra: ["--in-memory", "--redis", "redis://127.0.0.1:\(redis.port)", "--presence-ttl", "1500",
                                                   "--presence-interval", "100", "--webhook", receiver.url, "--webhook-secret", Self.secret,
                                                   "--webhook-retry-base", "50", "--webhook-debounce", "300"])
        }
        let (alice, _) = try await ClusterServerTests.join(victimURL, user: "alice", client: "a1", loop: group.next())
        #expect(await Self.next(receiver)?.line == "room.started")
        let survivor = try ClusterServerTests.startNode(redisPort: redis.port, Self.webhooks(receiver.url))
        let (bob, _) = try await ClusterServerTests.join(survivor.syncURL, user: "bob", client: "b1", loop: group.next())
        _ = await ClusterServerTests.first(bob) { if case .join(let p) = $0, p.client == "a1" { p } else { nil } }

        kill(victim.processIdentifier, SIGKILL)
        await CrashDurabilityTests.offload { victim.waitUntilExit() }
        while await receiver.next(timeout: .milliseconds(300)) != nil {}
        accepting.store(true, ordering: .releasing)

        let handedOver = await Self.lines(receiver, count: 4)
        #expect(handedOver.map(\.line) == ["room.started", "participant.joined a1", "participant.joined b1", "participant.left a1"])
        #expect(Set(handedOver.map(\.id)).count == 4)
        await bob.socket.close()
        #expect(await Self.lines(receiver, count: 2).map(\.line) == ["participant.left b1", "room.ended"])
        _ = alice
        await survivor.shutdown()
        receiver.stop()
        await ClusterServerTests.shutDown(group)
        await redis.stop()
    }
}
