import Foundation
import Synchronization
import TandemRedis
import TandemWire

/// A throwaway Redis Cluster for tests: `shards` primaries (no replicas) on free 127.0.0.1 ports, the
/// 16,384 slots split evenly between them in order, joined with `CLUSTER MEET`; `start` returns once
/// every node reports `cluster_state:ok`.
package final class RedisClusterProcess: Sendable {
    private let processes: Mutex<[RedisServerProcess]>

    /// The nodes, shard by shard (shard i serves the i-th share of the slots).
    package var nodes: [RedisServerProcess] { processes.withLock { $0 } }

    private init(nodes: [RedisServerProcess]) {
        processes = Mutex(nodes)
    }

    /// Starts the nodes and joins them into one cluster.
    /// - Throws: `RedisServerProcessError`, or `RedisError` when the cluster does not come up within `timeout`.
    package static func start(shards: Int = 3, group: EventLoopGroup, timeout: Duration = .seconds(30)) async throws -> RedisClusterProcess {
        var nodes: [RedisServerProcess] = []
        do {
            for _ in 0..<shards { nodes.append(try await RedisServerProcess.start(clusterNode: true)) }
            let cluster = RedisClusterProcess(nodes: nodes)
            try await cluster.join(group: group, timeout: timeout)
            return cluster
        } catch {
            for node in nodes { await node.stop() }
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
        for node in nodes { await node.stop() }
    }

    /// Runs `body` with a fresh cluster and a two-loop group; both are stopped afterwards.
    package static func with(shards: Int = 3, _ body: (RedisClusterProcess, EventLoopGroup) async throws -> Void) async throws {
        let group = try EventLoopGroup(threads: 2)
        let cluster: RedisClusterProcess
        do {
            cluster = try await start(shards: shards, group: group)
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
    package func client(group: EventLoopGroup) -> RedisClusterClient {
        var configuration = RedisClient.Configuration(endpoint: endpoint(0))
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
        for index in nodes.indices {
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
        processes.withLock { $0[index] = new }
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
                if info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:\(nodes.count)") { break }
                guard clock.now < deadline else { throw RedisError.unexpectedReply(command: "CLUSTER INFO", reply: info) }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }
}
