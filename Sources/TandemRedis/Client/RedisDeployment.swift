import TandemWire

/// Where Tandem's data lives in Redis: one server, or a Redis Cluster (sharded) reached through seed
/// nodes. Makes the client that serves either (`RedisCommandSending`).
package enum RedisDeployment: Sendable, Hashable, CustomStringConvertible {
    /// One server (`cluster-enabled no`), possibly with replicas the client does not use.
    case server(RedisEndpoint)
    /// A Redis Cluster: the slot map is read from the first of these nodes that answers.
    case cluster(seeds: [RedisEndpoint])

    /// Parses `urls`, one `redis://HOST[:PORT]` or several separated by commas (cluster seeds only).
    /// - Throws: `RedisError.invalidURL` for a bad URL, or several of them without `cluster`.
    package init(urls: String, cluster: Bool) throws(RedisError) {
        var endpoints: [RedisEndpoint] = []
        for url in urls.split(separator: ",", omittingEmptySubsequences: false) {
            endpoints.append(try RedisEndpoint(url: url.trimmingSpaces))
        }
        if cluster {
            self = .cluster(seeds: endpoints)
        } else {
            guard endpoints.count == 1 else {
                throw .invalidURL(urls, reason: "several addresses name the seed nodes of a Redis Cluster: add --redis-cluster")
            }
            self = .server(endpoints[0])
        }
    }

    /// The servers named: the one, or the seeds.
    package var endpoints: [RedisEndpoint] {
        switch self {
        case .server(let endpoint): [endpoint]
        case .cluster(let seeds): seeds
        }
    }

    /// A client for this deployment, with the default connection settings; with `readsServerRunID`,
    /// scripts can be given the run id of the server process that runs them.
    package func client(group: EventLoopGroup, readsServerRunID: Bool = false) -> any RedisCommandSending {
        var configuration = RedisClient.Configuration(endpoint: endpoints[0])
        configuration.readsServerRunID = readsServerRunID
        switch self {
        case .server:
            return RedisClient(configuration: configuration, group: group)
        case .cluster(let seeds):
            return RedisClusterClient(seeds: seeds, configuration: configuration, group: group)
        }
    }

    /// `host:port`, or `Redis Cluster via host:port, …`.
    package var description: String {
        switch self {
        case .server(let endpoint): "\(endpoint)"
        case .cluster(let seeds): "Redis Cluster via " + seeds.map(\.description).joined(separator: ", ")
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
