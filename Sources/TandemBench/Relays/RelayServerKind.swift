/// One of the servers the relay benchmark compares: a single process, or a cluster deployment of Tandem
/// nodes and the `redis-server` they share (each started fresh for a measurement).
enum RelayServerKind: String, Sendable, CaseIterable {
    /// gorilla/websocket relay in Go (bench/relays/go, built by bench/setup into .build/bench/go-relay).
    case go
    /// `websockets` relay in Python asyncio (bench/relays/python/relay.py, run with .venv's Python).
    case python
    /// `tandem serve` with SQLite storage: every ack after its commit.
    case tandem
    /// `tandem serve` with SQLite storage sending webhooks to an endpoint that never answers: what a
    /// hanging receiver costs the sync path.
    case tandemWebhookHanging = "tandem-webhook-hanging"
    /// `tandem serve --in-memory`: the same server without storage, to show what durability costs.
    case tandemMemory = "tandem-memory"
    /// `tandem serve` with SQLite storage serving TLS (`--tls-cert`), its clients on `wss://`: what TLS costs.
    case tandemTLS = "tandem-tls"
    /// One `tandem serve --redis … --in-memory` node and a Redis with an always-fsynced append-only file.
    case tandemRedis = "tandem-redis"
    /// Two such nodes on one Redis (always-fsynced AOF); each room's clients alternate between the nodes.
    case tandemRedis2 = "tandem-redis-2"
    /// One node and a Redis that persists nothing (`--save '' --appendonly no`).
    case tandemRedisVolatile = "tandem-redis-volatile"
    /// Two nodes and a Redis that persists nothing.
    case tandemRedis2Volatile = "tandem-redis-2-volatile"
    /// One node and a Redis whose append-only file is fsynced once a second (`--appendfsync everysec`).
    case tandemRedisEverysec = "tandem-redis-everysec"
    /// Two nodes and a Redis whose append-only file is fsynced once a second.
    case tandemRedis2Everysec = "tandem-redis-2-everysec"
    /// One node (`--redis-cluster`) and a 3-shard Redis Cluster, each shard's AOF fsynced once a second.
    case tandemRedisSharded = "tandem-redis-sharded"
    /// Two nodes on a 3-shard Redis Cluster (AOF everysec).
    case tandemRedis2Sharded = "tandem-redis-2-sharded"
    /// Two nodes on one Redis (AOF everysec), every member of a room on the same node, as a load
    /// balancer with room affinity places them.
    case tandemRedis2Affinity = "tandem-redis-2-affinity"

    /// The servers `bench/run` compares when `TANDEM_BENCH_SERVERS` is not set (the relay comparison).
    static let relayComparison: [RelayServerKind] = [.go, .python, .tandem, .tandemMemory]

    /// How Redis keeps the rooms of a cluster deployment.
    enum RedisPersistence: Sendable, Equatable {
        /// `--appendonly yes --appendfsync always`: fsync before every reply (docs/CLUSTER.md's recommendation).
        case alwaysFsync
        /// `--appendonly yes --appendfsync everysec`: written before every reply, fsynced once a second.
        case everySecond
        /// `--appendonly no`: nothing survives a Redis restart.
        case none
    }

    /// Tandem nodes sharing one Redis, or 0 for a single process without Redis.
    var clusterNodes: Int {
        switch self {
        case .go, .python, .tandem, .tandemMemory, .tandemTLS, .tandemWebhookHanging: 0
        case .tandemRedis, .tandemRedisVolatile, .tandemRedisEverysec, .tandemRedisSharded: 1
        case .tandemRedis2, .tandemRedis2Volatile, .tandemRedis2Everysec, .tandemRedis2Sharded, .tandemRedis2Affinity: 2
        }
    }

    /// Whether every member of a room connects to the same node (otherwise members alternate between nodes).
    var roomAffinity: Bool { self == .tandemRedis2Affinity }

    /// The `redis-server` processes of a cluster deployment: the shards of a Redis Cluster, or one server.
    var redisShards: Int {
        self == .tandemRedisSharded || self == .tandemRedis2Sharded ? 3 : 1
    }

    /// Whether this is a cluster deployment (Tandem nodes plus `redis-server`).
    var isCluster: Bool { clusterNodes > 0 }

    /// The Redis persistence of a cluster deployment; nil for single processes.
    var redisPersistence: RedisPersistence? {
        switch self {
        case .go, .python, .tandem, .tandemMemory, .tandemTLS, .tandemWebhookHanging: nil
        case .tandemRedis, .tandemRedis2: .alwaysFsync
        case .tandemRedisVolatile, .tandemRedis2Volatile: RedisPersistence.none
        case .tandemRedisEverysec, .tandemRedis2Everysec, .tandemRedisSharded, .tandemRedis2Sharded, .tandemRedis2Affinity: .everySecond
        }
    }

    /// Whether clients speak Tandem's protocol v1 (hello, patches, acks) rather than plain relayed text.
    var speaksTandem: Bool { self != .go && self != .python }

    /// The name in tables and charts.
    var label: String {
        switch self {
        case .go: "Go gorilla/websocket relay"
        case .python: "Python websockets relay"
        case .tandem: "Tandem (durable acks)"
        case .tandemMemory: "Tandem (--in-memory)"
        case .tandemTLS: "Tandem (durable acks, TLS)"
        case .tandemWebhookHanging: "Tandem (durable acks, webhooks to an endpoint that never answers)"
        case .tandemRedis: "Tandem, 1 node + Redis (AOF always)"
        case .tandemRedis2: "Tandem, 2 nodes + Redis (AOF always)"
        case .tandemRedisVolatile: "Tandem, 1 node + Redis (no persistence)"
        case .tandemRedis2Volatile: "Tandem, 2 nodes + Redis (no persistence)"
        case .tandemRedisEverysec: "Tandem, 1 node + Redis (AOF everysec)"
        case .tandemRedis2Everysec: "Tandem, 2 nodes + Redis (AOF everysec)"
        case .tandemRedisSharded: "Tandem, 1 node + Redis Cluster of 3 shards (AOF everysec)"
        case .tandemRedis2Sharded: "Tandem, 2 nodes + Redis Cluster of 3 shards (AOF everysec)"
        case .tandemRedis2Affinity: "Tandem, 2 nodes + Redis (AOF everysec), each room on one node"
        }
    }

    /// The name under a bar of the chart.
    var shortLabel: String {
        switch self {
        case .go: "Go relay"
        case .python: "Python relay"
        case .tandem: "Tandem durable"
        case .tandemMemory: "Tandem in-memory"
        case .tandemTLS: "Tandem TLS"
        case .tandemWebhookHanging: "Tandem, hanging webhook"
        case .tandemRedis: "1 node + Redis"
        case .tandemRedis2: "2 nodes + Redis"
        case .tandemRedisVolatile: "1 node + volatile Redis"
        case .tandemRedis2Volatile: "2 nodes + volatile Redis"
        case .tandemRedisEverysec: "1 node + Redis everysec"
        case .tandemRedis2Everysec: "2 nodes + Redis everysec"
        case .tandemRedisSharded: "1 node + 3 Redis shards"
        case .tandemRedis2Sharded: "2 nodes + 3 Redis shards"
        case .tandemRedis2Affinity: "2 nodes + Redis, room affinity"
        }
    }
}
