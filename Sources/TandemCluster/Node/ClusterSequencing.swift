import Foundation
import TandemRedis
import TandemServer
import TandemWire

/// Sequencing across nodes that share a Redis: each room is opened from its log in Redis and
/// sequenced by a `ClusterRoomSequencer` of this node's `ClusterNode`.
struct ClusterSequencing: SequencingService {
    let node: ClusterNode
    let settings: RoomCore.Settings
    /// The loops a webhook service's own Redis connection runs on.
    let group: EventLoopGroup

    var summary: String { "\(node.settings.redis) as \(node.settings.nodeID)" }
    var sharedRooms: (any SharedRooms)? { ClusterSharedRooms(node: node) }
    var sharedRemovals: (any SharedRemovals)? { node.removals }
    var nodeID: String? { node.settings.nodeID }

    /// Webhooks decided in Redis and delivered by the node holding the lease, over a Redis connection
    /// of their own (a delivery round never waits behind patches, nor patches behind it).
    func webhooks(_ setup: WebhookSetup) -> (any WebhookService)? {
        let client = node.settings.redis.client(group: group)
        return ClusterWebhooks(client: client, nodeID: node.settings.nodeID, setup: setup,
                               settings: ClusterWebhooks.Settings(ttl: node.settings.presence.ttl.totalMilliseconds)) { [node] in
            node.presentParticipants()
        }
    }

    func load(_ room: String, completion: @escaping @Sendable (Result<(RoomCore, any RoomSequencer), StorageError>) -> Void) {
        node.load(room, settings: settings) { [node] result in
            switch result {
            case .success(let (core, link)):
                completion(.success((core, ClusterRoomSequencer(name: room, node: node, link: link))))
            case .failure(let error):
                completion(.failure(.cluster(error.description)))
            }
        }
    }

    func unload(_ room: String) {
        node.release(room)
    }

    func check() async throws(ServerStartError) {
        let redis = node.settings.redis
        let runsCluster: Bool
        do throws(ClusterError) {
            runsCluster = try await node.redisRunsCluster()
        } catch {
            if case .cluster = redis, error.description.contains("cluster support disabled") {
                throw .cluster("Redis at \(redis.endpoints[0]) is not a Redis Cluster (cluster support disabled): drop --redis-cluster")
            }
            throw .cluster("Redis at \(redis) does not answer (\(error.description)); is redis-server running there?")
        }
        if case .server(let endpoint) = redis, runsCluster {
            throw .cluster("Redis at \(endpoint) is a node of a Redis Cluster (cluster_enabled:1): add --redis-cluster")
        }
    }

    func cancel() {
        node.cancel()
    }

    func shutdown() async {
        await node.shutdown()
    }
}

extension RoomSequencing {
    /// Several servers share rooms through the Redis of the configuration's `redisURL`: Redis gives each
    /// patch its rev, every node folds the rooms' logs and serves its own connections from them (see
    /// docs/CLUSTER.md). The configuration's `nodeID` and cluster presence settings apply.
    public static var cluster: RoomSequencing {
        RoomSequencing { (context) throws(ServerStartError) in
            let configuration = context.configuration
            guard let url = configuration.redisURL else {
                throw .cluster("cluster mode needs the address of Redis: set redisURL (tandem serve --redis redis://HOST:PORT)")
            }
            let redis: RedisDeployment
            do throws(RedisError) {
                redis = try RedisDeployment(urls: url, cluster: configuration.redisCluster)
            } catch {
                throw .cluster("--redis: \(error.description)")
            }
            let node = ClusterNode(
                settings: ClusterNode.Settings(
                    redis: redis, nodeID: configuration.nodeID ?? "node-\(RoomRegistry.randomEpoch())",
                    // The shared log is both the resume window and the history the rooms API reads.
                    logLength: max(configuration.historyWindow, configuration.retainedRevisions), limits: context.rooms.core.limits,
                    snapshotInterval: Int64(configuration.snapshotInterval),
                    retainedMilliseconds: configuration.retainedAge.map(\.totalMilliseconds),
                    resumeWindow: Int64(configuration.historyWindow),
                    presence: .init(ttl: configuration.clusterPresenceTTL,
                                    interval: configuration.clusterPresenceInterval),
                    commitInterval: configuration.clusterCommitInterval,
                    progressTTL: context.rooms.core.progressTTL, maxTrackedClients: context.rooms.core.maxTrackedClients),
                group: context.group, logger: context.logger, wallClock: context.rooms.wallClock)
            return ClusterSequencing(node: node, settings: context.rooms.core, group: context.group)
        }
    }
}
