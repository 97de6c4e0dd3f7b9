import Foundation
import TandemWire

/// What one benchmark measurement runs against: a single server process, or a cluster deployment (a fresh
/// `redis-server` and `tandem serve --redis` nodes). CPU time and memory are summed over all its processes,
/// Redis included, so a deployment is charged for everything it needs.
final class RelayDeployment: @unchecked Sendable {
    let kind: RelayServerKind
    /// The server processes clients connect to (one, or the cluster's nodes in order).
    let nodes: [RelayServerProcess]
    /// The cluster's Redis servers (the shards of a Redis Cluster, or one); empty for single processes.
    let redis: [RedisBenchProcess]
    /// What clients verify the server with when it serves TLS (`tandem-tls`).
    let clientTLS: TLSContext?

    /// Starts `kind`'s processes (Redis first, then its nodes) and waits until all listen; whatever started is
    /// stopped again when a later process fails.
    init(kind: RelayServerKind, paths: RelayServerProcess.Paths, secret: String) throws {
        self.kind = kind
        guard let persistence = kind.redisPersistence else {
            nodes = [try RelayServerProcess(kind: kind, paths: paths, secret: secret)]
            redis = []
            clientTLS = Self.clientTLS(for: nodes)
            return
        }
        guard let executable = paths.redis else {
            throw RelayBenchError(description: "redis-server is missing: install it (apt-get install redis-server) or set TANDEM_BENCH_REDIS")
        }
        var redis: [RedisBenchProcess] = []
        var started: [RelayServerProcess] = []
        do {
            let sharded = kind.redisShards > 1
            for _ in 0..<kind.redisShards { redis.append(try RedisBenchProcess(executable: executable, persistence: persistence, clusterNode: sharded)) }
            if sharded { try RedisBenchProcess.joinCluster(redis) }
            let url = redis.map(\.url).joined(separator: ",")
            for node in 0..<kind.clusterNodes {
                started.append(try RelayServerProcess(kind: kind, paths: paths, secret: secret, redisURL: url, nodeID: "bench-n\(node)"))
            }
        } catch {
            for node in started { node.stop() }
            for server in redis { server.stop() }
            throw error
        }
        self.redis = redis
        nodes = started
        clientTLS = nil
    }

    /// The client TLS context for a deployment that serves TLS (trusting its certificate); nil otherwise.
    static func clientTLS(for nodes: [RelayServerProcess]) -> TLSContext? {
        nodes.first?.trustedCertificate.flatMap { try? TLSContext(.client(additionalTrustRoots: [$0], trustsSystemRoots: false)) }
    }

    /// Every process of the deployment, nodes first.
    var processIDs: [Int32] { nodes.map(\.processID) + redis.map(\.processID) }

    /// CPU seconds used so far by all processes.
    var cpuSeconds: Double { Self.total(processIDs.map { LoadStatistics.cpuSeconds(processID: $0) }) }

    /// CPU seconds used so far by Redis alone; nil for single processes.
    var redisCPUSeconds: Double? { redis.isEmpty ? nil : Self.total(redis.map { LoadStatistics.cpuSeconds(processID: $0.processID) }) }

    /// Calls per command so far, summed over the Redis servers; nil for single processes or when one did not answer.
    func redisCommandCalls() -> [String: Int]? {
        guard !redis.isEmpty else { return nil }
        var calls: [String: Int] = [:]
        for server in redis {
            guard let counted = server.commandCalls() else { return nil }
            calls.merge(counted, uniquingKeysWith: +)
        }
        return calls
    }

    /// Resident memory of all processes in bytes.
    var residentBytes: Int { Int(Self.total(processIDs.map { LoadStatistics.residentBytes(processID: $0).map(Double.init) })) }

    /// The URL a client connects to: member `member` of `room` goes to node `member % nodes`, so every room with
    /// at least as many members as nodes spans all nodes and its patches cross between them; with room
    /// affinity every member of a room goes to the node its name hashes to.
    func url(room: String, member: Int) -> String {
        nodes[kind.roomAffinity ? Self.node(forRoom: room, nodes: nodes.count) : Self.node(forMember: member, nodes: nodes.count)].url(room: room)
    }

    /// The node index for a room under room affinity: FNV-1a of its name, mod n (stable across runs).
    static func node(forRoom room: String, nodes: Int) -> Int {
        guard nodes > 0 else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in room.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % UInt64(nodes))
    }

    /// The node index for a room member: alternating, member i → node i mod n.
    static func node(forMember member: Int, nodes: Int) -> Int {
        nodes > 0 ? member % nodes : 0
    }

    /// The sum of per-process readings; a process already gone (nil) counts as 0.
    static func total(_ readings: [Double?]) -> Double {
        readings.reduce(0) { $0 + ($1 ?? 0) }
    }

    /// Stops the nodes, then Redis.
    func stop() {
        for node in nodes { node.stop() }
        for server in redis { server.stop() }
    }
}
