import Foundation
import Synchronization
import TandemRedis
import TandemWire

/// A throwaway Redis Cluster for tests: `shards` primaries on free 127.0.0.1 ports, the 16,384 slots
/// split evenly between them in order, joined with `CLUSTER MEET`, and optionally one replica each;
/// `start` returns once every node reports `cluster_state:ok` (and every replica is in sync).
package final class RedisClusterProcess: Sendable {
    private struct Members {
        /// Shard by shard, the process serving its slots.
        var primaries: [RedisServerProcess]
        /// Shard by shard, its replica, when the cluster has them.
        var replicas: [RedisServerProcess]
        /// Nodes the cluster knows, failed ones included.
        var known: Int
    }

    private let members: Mutex<Members>

    /// The primaries, shard by shard (shard i serves the i-th share of the slots).
    package var nodes: [RedisServerProcess] { members.withLock { $0.primaries } }

    private init(nodes: [RedisServerProcess]) {
        members = Mutex(Members(primaries: nodes, replicas: [], known: nodes.count))
    }

    /// Starts the nodes and joins them into one cluster; with `replicas`, one replica per shard.
    /// - Throws: `RedisServerProcessError`, or `RedisError` when the cluster does not come up within `timeout`.
    /// - Parameter nodeTimeout: how long a node that does not answer takes to be found failed.
    package static func start(shards: Int = 3, replicas: Bool = false, nodeTimeout: Duration = .seconds(2), group: EventLoopGroup,
                              timeout: Duration = .seconds(30)) async throws -> RedisClusterProcess {
        var nodes: [RedisServerProcess] = []
        do {
            for _ in 0..<shards { nodes.append(try await RedisServerProcess.start(clusterNode: true, nodeTimeout: nodeTimeout)) }
        } catch {
            for node in nodes { await node.stop() }
            throw error
        }
        let cluster = RedisClusterProcess(nodes: nodes)
        do {
            try await cluster.join(group: group, timeout: timeout)
            if replicas { try await cluster.addReplicas(group: group, timeout: timeout) }
            return cluster
        } catch {
            await cluster.stop()
            throw error
        }
    }

    /// The first slot of each shard.
    package var firstSlots: [Int] { (0..<nodes.count).map { $0 * RedisHashSlot.count / nodes.count } }

    /// The endpoint of shard `index`.
    package func endpoint(_ index: Int) -> RedisEndpoint { RedisEndpoint(host: "127.0.0.1", port: nodes[index].port) }

    /// The shard serving `slot` in the initial split.
    package func shard(ofSlot slot: Int) -> Int { firstSlots.lastIndex { $0 <= slot } ?? 0 }

    /// The shard serving `key` in the initial split.
    package func shard(of key: String) -> Int { shard(ofSlot: RedisHashSlot.of(key)) }

    /// `redis://` URLs of the nodes, comma-separated (what `--redis` takes with `--redis-cluster`).
    package var urls: String { nodes.map { "redis://127.0.0.1:\($0.port)" }.joined(separator: ",") }

    /// Stops every node and removes their files.
    package func stop() async {
        let all = members.withLock { $0.primaries + $0.replicas }
        for node in all { await node.stop() }
    }

    /// Runs `body` with a fresh cluster (with a replica per shard when `replicas`) and a two-loop group;
    /// both are stopped afterwards.
    package static func with(shards: Int = 3, replicas: Bool = false, nodeTimeout: Duration = .seconds(2),
                             _ body: (RedisClusterProcess, EventLoopGroup) async throws -> Void) async throws {
        let group = try EventLoopGroup(threads: 2)
        let cluster: RedisClusterProcess
        do {
            cluster = try await start(shards: shards, replicas: replicas, nodeTimeout: nodeTimeout, group: group)
        } catch {
            await shutDown(group)
            throw error
        }
        do {
            try await body(cluster, group)
        } catch {
            await cluster.stop()
            await shutDown(group)
            throw error
        }
        await cluster.stop()
        await shutDown(group)
    }

    /// A routing client seeded with shard 0 only, reading each node's run id.
    package func client(group: EventLoopGroup, maxConnectAttempts: Int = 8) -> RedisClusterClient {
        var configuration = RedisClient.Configuration(endpoint: endpoint(0), maxConnectAttempts: maxConnectAttempts)
        configuration.readsServerRunID = true
        return RedisClusterClient(seeds: [endpoint(0)], configuration: configuration, group: group)
    }

    /// Moves `slot` from shard `from` to shard `to` as `redis-cli --cluster reshard` does: the target
    /// imports, the source migrates, every key of the slot goes over with `MIGRATE`, then every node is
    /// told the new owner. With `finish` false it stops half-way (the slot migrating, no key moved).
    package func migrate(_ slot: Int, from: Int, to: Int, group: EventLoopGroup, finish: Bool = true) async throws {
        let source = try await RedisConnection.connect(to: endpoint(from), on: group.next())
        let target = try await RedisConnection.connect(to: endpoint(to), on: group.next())
        defer { source.close(); target.close() }
        let sourceID = try await source.send(["CLUSTER", "MYID"]).string ?? ""
        let targetID = try await target.send(["CLUSTER", "MYID"]).string ?? ""
        _ = try await target.send(["CLUSTER", "SETSLOT", RedisArgument(Int64(slot)), "IMPORTING", RedisArgument(sourceID)])
        _ = try await source.send(["CLUSTER", "SETSLOT", RedisArgument(Int64(slot)), "MIGRATING", RedisArgument(targetID)])
        guard finish else { return }
        let keys = try await source.send(["CLUSTER", "GETKEYSINSLOT", RedisArgument(Int64(slot)), "1000"]).array?.compactMap(\.string) ?? []
        if !keys.isEmpty {
            _ = try await source.send(["MIGRATE", "127.0.0.1", RedisArgument(Int64(nodes[to].port)), "", "0", "5000", "KEYS"] + keys.map { RedisArgument($0) })
        }
        // The target first, then the source, then the others (the order CLUSTER SETSLOT's documentation
        // gives): the target takes the slot with a new config epoch before anyone else names it.
        for index in [to, from] + nodes.indices.filter({ $0 != to && $0 != from }) {
            let node = try await RedisConnection.connect(to: endpoint(index), on: group.next())
            _ = try await node.send(["CLUSTER", "SETSLOT", RedisArgument(Int64(slot)), "NODE", RedisArgument(targetID)])
            node.close()
        }
    }

    private static func shutDown(_ group: EventLoopGroup) async {
        // Joining loop threads blocks: do it off the cooperative pool.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                group.shutdown()
                done.resume()
            }
        }
    }

    /// Kills shard `index` (SIGKILL) and starts it again at once on its ports and cluster configuration,
    /// without its data (the nodes keep no persistence): it serves its slots again, empty, once every
    /// node reports `cluster_state:ok`.
    package func restart(shard index: Int, group: EventLoopGroup, timeout: Duration = .seconds(30)) async throws {
        let old = nodes[index]
        await old.stop(keepingData: true)
        let new = try await RedisServerProcess.start(port: old.port, directory: old.directory, clusterNode: true, clusterBusPort: old.clusterBusPort)
        members.withLock { $0.primaries[index] = new }
        try await waitUntilOK(group: group, timeout: timeout)
    }

    /// Kills shard `index`'s primary (SIGKILL) and returns once its replica serves the shard's slots (the
    /// other primaries voted it in, after `cluster-node-timeout`); `endpoint(index)` is the replica's then.
    package func failOver(shard index: Int, group: EventLoopGroup, timeout: Duration = .seconds(30)) async throws {
        await killPrimary(shard: index)
        try await awaitFailover(shard: index, group: group, timeout: timeout)
    }

    /// Returns once shard `index`'s replica has applied every write its primary has made so far.
    /// Replication is asynchronous; `WAIT` would not do here, since it only waits for the writes made on
    /// the connection that sends it, and the writes under test came through other connections.
    package func awaitReplication(shard index: Int, group: EventLoopGroup, timeout: Duration = .seconds(10)) async throws {
        let replica = members.withLock { $0.replicas[index] }
        let primary = try await RedisConnection.connect(to: endpoint(index), on: group.next())
        defer { primary.close() }
        let target = Self.replicationOffset(try await primary.send(["INFO", "replication"]).string, field: "master_repl_offset")
        let follower = try await RedisConnection.connect(to: RedisEndpoint(host: "127.0.0.1", port: replica.port), on: group.next())
        defer { follower.close() }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while Self.replicationOffset(try await follower.send(["INFO", "replication"]).string, field: "slave_repl_offset") < target {
            guard clock.now < deadline else {
                throw RedisError.unexpectedReply(command: "INFO replication", reply: "the replica of shard \(index) did not reach offset \(target)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The integer `field` of an `INFO replication` reply (-1 when absent, so a missing replica offset waits).
    private static func replicationOffset(_ info: String?, field: String) -> Int64 {
        for line in (info ?? "").split(whereSeparator: \.isNewline) where line.hasPrefix(field + ":") {
            return Int64(line.dropFirst(field.count + 1)) ?? -1
        }
        return -1
    }

    /// Kills shard `index`'s primary (SIGKILL); its replica takes over after `cluster-node-timeout`.
    package func killPrimary(shard index: Int) async {
        await nodes[index].stop()
    }

    /// Returns once shard `index`'s replica serves the shard's slots; `endpoint(index)` is the replica's then.
    package func awaitFailover(shard index: Int, group: EventLoopGroup, timeout: Duration = .seconds(30)) async throws {
        let replica = members.withLock { $0.replicas[index] }
        let witness = try await RedisConnection.connect(to: endpoint((index + 1) % nodes.count), on: group.next())
        defer { witness.close() }
        let slot = Int64(firstSlots[index])
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let map = try RedisSlotMap(clusterSlots: try await witness.send(["CLUSTER", "SLOTS"]), fallbackHost: "127.0.0.1")
            if map.endpoint(for: Int(slot))?.port == replica.port { break }
            guard clock.now < deadline else { throw RedisError.unexpectedReply(command: "CLUSTER SLOTS", reply: "no failover of shard \(index)") }
            try await Task.sleep(for: .milliseconds(50))
        }
        members.withLock { members in
            members.primaries[index] = replica
            members.replicas.removeAll { $0.port == replica.port }
        }
    }

    /// Starts one replica per shard, joins it, makes it replicate its shard's primary and waits until
    /// every replica is in sync.
    private func addReplicas(group: EventLoopGroup, timeout: Duration) async throws {
        let primaries = nodes
        var replicas: [RedisServerProcess] = []
        for _ in primaries { replicas.append(try await RedisServerProcess.start(clusterNode: true)) }
        members.withLock {
            $0.replicas = replicas
            $0.known += replicas.count
        }
        let seed = try await RedisConnection.connect(to: endpoint(0), on: group.next())
        defer { seed.close() }
        for replica in replicas {
            _ = try await seed.send(["CLUSTER", "MEET", "127.0.0.1", RedisArgument(Int64(replica.port)),
                                     RedisArgument(Int64(replica.clusterBusPort ?? replica.port + 10_000))])
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        for (index, replica) in replicas.enumerated() {
            let primary = try await RedisConnection.connect(to: endpoint(index), on: group.next())
            let primaryID = try await primary.send(["CLUSTER", "MYID"]).string ?? ""
            primary.close()
            let connection = try await RedisConnection.connect(to: RedisEndpoint(host: "127.0.0.1", port: replica.port), on: group.next())
            defer { connection.close() }
            // The replica must have heard of its primary through the cluster bus first.
            while true {
                do {
                    _ = try await connection.send(["CLUSTER", "REPLICATE", RedisArgument(primaryID)])
                    break
                } catch {
                    guard clock.now < deadline else { throw error }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            while !(try await connection.send(["INFO", "replication"]).string ?? "").contains("master_link_status:up") {
                guard clock.now < deadline else { throw RedisError.unexpectedReply(command: "INFO replication", reply: "replica of shard \(index) not in sync") }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        try await waitUntilOK(group: group, timeout: timeout)
    }

    private func join(group: EventLoopGroup, timeout: Duration) async throws {
        var connections: [RedisConnection] = []
        defer { for connection in connections { connection.close() } }
        for (index, node) in nodes.enumerated() {
            let connection = try await RedisConnection.connect(to: endpoint(index), on: group.next())
            connections.append(connection)
            let first = index * RedisHashSlot.count / nodes.count
            let last = (index + 1) * RedisHashSlot.count / nodes.count - 1
            _ = try await connection.send(["CLUSTER", "ADDSLOTSRANGE", RedisArgument(Int64(first)), RedisArgument(Int64(last))])
            if index > 0 {
                _ = try await connections[0].send(["CLUSTER", "MEET", "127.0.0.1", RedisArgument(Int64(node.port)),
                                                   RedisArgument(Int64(node.clusterBusPort ?? node.port + 10_000))])
            }
        }
        try await waitUntilOK(group: group, timeout: timeout)
    }

    private func waitUntilOK(group: EventLoopGroup, timeout: Duration) async throws {
        var connections: [RedisConnection] = []
        defer { for connection in connections { connection.close() } }
        for index in nodes.indices { connections.append(try await RedisConnection.connect(to: endpoint(index), on: group.next())) }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        for connection in connections {
            while true {
                let info = try await connection.send(["CLUSTER", "INFO"]).string ?? ""
                if info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:\(members.withLock { $0.known })") { break }
                guard clock.now < deadline else { throw RedisError.unexpectedReply(command: "CLUSTER INFO", reply: info) }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }
}
