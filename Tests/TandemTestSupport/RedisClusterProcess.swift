import Foundation
import TandemRedis
import TandemWire

/// A throwaway Redis Cluster for tests: `shards` primaries (no replicas) on free 127.0.0.1 ports, the
/// 16,384 slots split evenly between them in order, joined with `CLUSTER MEET`; `start` returns once
/// every node reports `cluster_state:ok`.
package final class RedisClusterProcess: Sendable {
    /// The nodes, shard by shard (shard i serves the i-th share of the slots).
    package let nodes: [RedisServerProcess]

    private init(nodes: [RedisServerProcess]) {
        self.nodes = nodes
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

    /// Stops every node and removes their files.
    package func stop() async {
        for node in nodes { await node.stop() }
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
