import Foundation
import Testing
import TandemProtocol
import TandemRedis
import TandemTestSupport
import TandemWire
@testable import TandemCluster
@testable import TandemServer

/// Nodes sharing rooms through a real 3-shard Redis Cluster (`--redis-cluster`), driven by protocol
/// clients over real sockets: rooms on every shard, a node killed, presence, and the start checks.
@Suite("Cluster: nodes on a sharded Redis Cluster", .serialized, .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct RedisClusterServerTests {
    /// Six rooms, two on each shard of the initial split (a room's keys share the slot of its name).
    static let rooms = ["room-0", "room-1", "room-2", "room-3", "room-4", "room-5"]

    static func startNode(_ cluster: RedisClusterProcess, _ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws -> SyncServer {
        try ClusterServerTests.startNode(redisPort: cluster.nodes[0].port) { configuration in
            configuration.redisURL = cluster.urls
            configuration.redisCluster = true
            adjust(&configuration)
        }
    }

    @Test("two nodes, rooms on every shard, a writer on each node per room: every connection sees revs 1…N in order; participants see each other across nodes")
    func roomsOnEveryShard() async throws {
        try await RedisClusterProcess.with { cluster, group in
            let rooms = Self.rooms
            #expect(Set(rooms.map { cluster.shard(of: "{\($0)}") }) == [0, 1, 2])
            let fast: (inout ServerConfiguration) -> Void = {
                $0.clusterPresenceInterval = .milliseconds(100)
                $0.clusterPresenceTTL = .milliseconds(5_000)
            }
            let nodes = try [Self.startNode(cluster, fast), Self.startNode(cluster, fast)]
            try await nodes[0].checkCluster()
            let patchesEach = 10
            var clients: [(room: String, client: ProtocolClient)] = []
            for room in rooms {
                for (n, node) in nodes.enumerated() {
                    let (client, welcome) = try await ClusterServerTests.join(node.syncURL, user: "u\(n)", client: "\(room)-c\(n)", room: room, loop: group.next())
                    #expect(welcome.rev == 0)
                    clients.append((room, client))
                }
            }
            await withTaskGroup(of: Void.self) { tasks in
                for (index, entry) in clients.enumerated() {
                    tasks.addTask {
                        for seq in 1...patchesEach { try? await entry.client.send(.patch(seq: Int64(seq), ops: ClusterServerTests.set("w\(index)", seq))) }
                    }
                }
            }
            for (index, entry) in clients.enumerated() {
                let updates = await ClusterServerTests.updates(entry.client, count: 2 * patchesEach)
                #expect(updates.map(\.rev) == Array(1...Int64(2 * patchesEach)), "connection \(index) in \(entry.room)")
                #expect(updates.filter(\.ack).count == patchesEach)
            }
            // The participant on node 0 of the last room learns of the one on node 1 (presence keys on that room's shard).
            let last = clients[clients.count - 2].client
            let presence: JSONValue = .object(["at": .number(3)])
            try await clients[clients.count - 1].client.send(.presence(data: presence))
            // As a presence change, or with the join when the join had not crossed yet (an earlier join
            // carries the data from before).
            let seen = await ClusterServerTests.first(last) { message -> Bool? in
                switch message {
                case .join(let peer) where peer.client.hasSuffix("-c1") && peer.data == presence: true
                case .presence(let peer, let data) where peer.client.hasSuffix("-c1") && data == presence: true
                default: nil
                }
            }
            #expect(seen == true)
            for node in nodes { await node.shutdown() }
        }
    }

    @Test("a `tandem serve --redis-cluster` node is killed with SIGKILL: its client resumes on another node by replay, and no acknowledged patch is lost")
    func killedNodeOnACluster() async throws {
        try await RedisClusterProcess.with { cluster, group in
            let survivor = try Self.startNode(cluster)
            let (victim, victimURL) = try await CrashDurabilityTests.offload {
                try CrashDurabilityTests.serve(data: SyncServerTests.temporaryDirectory(), secret: ClusterServerTests.secret,
                                               extra: ["--in-memory", "--redis", cluster.urls, "--redis-cluster", "--node-id", "victim"])
            }
            let room = Self.rooms.first { cluster.shard(of: "{\($0)}") == 2 } ?? "lobby"
            let (watcher, _) = try await ClusterServerTests.join(survivor.syncURL, user: "bob", client: "b1", room: room, loop: group.next())
            let (alice, welcome) = try await ClusterServerTests.join(victimURL, user: "alice", client: "a1", room: room, loop: group.next())
            Task {
                for seq in 1...300 { try? await alice.send(.patch(seq: Int64(seq), ops: ClusterServerTests.set("k\(seq)", seq))) }
            }
            var acked: [Int64: Int64] = [:]
            while acked.count < 50, let message = await alice.next(timeout: .seconds(30)) {
                if case .ack(let seq, let rev, _, _) = message { acked[seq] = rev }
            }
            kill(victim.processIdentifier, SIGKILL)
            await CrashDurabilityTests.offload { victim.waitUntilExit() }
            while let message = await alice.next(timeout: .milliseconds(300)) {
                if case .ack(let seq, let rev, _, _) = message { acked[seq] = rev }
            }
            #expect(acked.count >= 50)
            let (again, resumed) = try await ClusterServerTests.join(survivor.syncURL, user: "alice", client: "a1", room: room,
                                                                     resume: ResumePoint(epoch: welcome.epoch, rev: 0), loop: group.next())
            #expect(resumed.epoch == welcome.epoch)
            guard case .replay(let events) = resumed.sync else { Issue.record("expected a replay, got a snapshot"); return }
            #expect(events.map(\.rev) == Array(1...resumed.rev))
            for (seq, rev) in acked { #expect(events.first { $0.seq == seq }?.rev == rev, "acked seq \(seq) lost") }
            #expect(await ClusterServerTests.revs(watcher, count: Int(resumed.rev)) == Array(1...resumed.rev))
            try await again.send(.patch(seq: resumed.lastSeq + 1, ops: ClusterServerTests.set("after", 1)))
            #expect(await ClusterServerTests.revs(again, count: 1) == [resumed.rev + 1])
            await survivor.shutdown()
        }
    }

    @Test("one shard restarts without its data: its room comes back from the node's memory in a new epoch, a room on another shard keeps its epoch and goes on")
    func oneShardLosesItsData() async throws {
        try await RedisClusterProcess.with { cluster, group in
            // The node's follower notices the loss on that shard (its marker) and resets the room.
            try await Self.oneShardStartsOver(cluster, group: group, writes: false) { shard in
                try await cluster.restart(shard: shard, group: group)
            }
        }
    }

    @Test("a shard's primary fails over to its replica: the node finds the new primary, its room starts a new epoch that kept every acknowledged patch, a room on another shard keeps its epoch")
    func primaryFailsOver() async throws {
        try await RedisClusterProcess.with(replicas: true) { cluster, group in
            // The next write reaches the new primary, a process the room's run id does not name: new epoch.
            try await Self.oneShardStartsOver(cluster, group: group, writes: true) { shard in
                // Replication is asynchronous: the test waits until the replica has every acknowledged write.
                try await cluster.awaitReplication(shard: shard, group: group)
                try await cluster.failOver(shard: shard, group: group)
            }
        }
    }

    /// A node with a room on one shard and a room on another, five patches acknowledged in each; `lose`
    /// takes the first room's shard (its index) from under the node, and when `writes` that room's client
    /// writes once more, which finds out. Then that client is closed and comes back in a new epoch whose
    /// snapshot holds every acknowledged patch, while the other room keeps its epoch and goes on.
    static func oneShardStartsOver(_ cluster: RedisClusterProcess, group: EventLoopGroup, writes: Bool,
                                   _ lose: (Int) async throws -> Void) async throws {
        let node = try Self.startNode(cluster)
        let shard = cluster.shard(of: "{\(rooms[0])}")
        let lostRoom = rooms[0], keptRoom = rooms.first { cluster.shard(of: "{\($0)}") != shard }!
        let (lost, lostWelcome) = try await ClusterServerTests.join(node.syncURL, user: "alice", client: "a1", room: lostRoom, loop: group.next())
        let (kept, keptWelcome) = try await ClusterServerTests.join(node.syncURL, user: "bob", client: "b1", room: keptRoom, loop: group.next())
        for seq in 1...5 {
            try await lost.send(.patch(seq: Int64(seq), ops: ClusterServerTests.set("k\(seq)", seq)))
            try await kept.send(.patch(seq: Int64(seq), ops: ClusterServerTests.set("k\(seq)", seq)))
        }
        #expect(await ClusterServerTests.revs(lost, count: 5) == Array(1...5))
        #expect(await ClusterServerTests.revs(kept, count: 5) == Array(1...5))
        try await lose(shard)
        if writes { try await lost.send(.patch(seq: 6, ops: ClusterServerTests.set("k6", 6))) }
        #expect(await lost.closeCode(timeout: .seconds(30)) == CloseCode.internalError.rawValue)
        let (_, after) = try await ClusterServerTests.join(node.syncURL, user: "alice", client: "a1", room: lostRoom,
                                                           resume: ResumePoint(epoch: lostWelcome.epoch, rev: 5), loop: group.next())
        #expect(after.epoch != lostWelcome.epoch && after.lastSeq >= 5)
        if case .state(let state) = after.sync {
            for seq in 1...5 { #expect(state["k\(seq)"] == .number(Double(seq)), "acknowledged seq \(seq) lost with the shard") }
        } else {
            Issue.record("expected a snapshot after the epoch change")
        }
        // The other shard's room never noticed.
        try await kept.send(.patch(seq: 6, ops: ClusterServerTests.set("k6", 6)))
        #expect(await ClusterServerTests.revs(kept, count: 1) == [6])
        let (_, keptAgain) = try await ClusterServerTests.join(node.syncURL, user: "bob", client: "b2", room: keptRoom, loop: group.next())
        #expect(keptAgain.epoch == keptWelcome.epoch && keptAgain.rev == 6)
        await node.shutdown()
    }

    @Test("a node refuses to start against a Redis Cluster without --redis-cluster, and with it against a server without cluster support")
    func startChecksTheKindOfRedis() async throws {
        try await RedisClusterProcess.with { cluster, _ in
            let plain = try ClusterServerTests.startNode(redisPort: cluster.nodes[0].port)
            #expect(await Self.startFailure(plain)
                    == "cannot join the cluster: Redis at 127.0.0.1:\(cluster.nodes[0].port) is a node of a Redis Cluster (cluster_enabled:1): add --redis-cluster")
            await plain.shutdown()
        }
        let redis = try await RedisServerProcess.start()
        let sharded = try ClusterServerTests.startNode(redisPort: redis.port) { $0.redisCluster = true }
        #expect(await Self.startFailure(sharded) == "cannot join the cluster: Redis at 127.0.0.1:\(redis.port) is not a Redis Cluster (cluster support disabled): drop --redis-cluster")
        await sharded.shutdown()
        await redis.stop()
    }

    static func startFailure(_ node: SyncServer) async -> String? {
        do {
            try await node.checkCluster()
            return nil
        } catch {
            return error.description
        }
    }
}
