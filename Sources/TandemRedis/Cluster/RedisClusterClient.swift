import TandemWire

/// A client for a Redis Cluster (sharded): sends each command to the primary serving its key's slot,
/// following the cluster's redirections.
///
/// The slot map comes from `CLUSTER SLOTS`, read from a seed on first use. `MOVED` (the slot lives
/// elsewhere now) reads the map again and sends the command to the node it names; `ASK` (the slot is
/// migrating) sends this one command to the target after `ASKING`, leaving the map as it is; a node
/// that cannot be reached makes it read the map again too (a replica may have taken over, or will once
/// the cluster has voted), then wait by the configuration's backoff and try again, as many times as
/// the configuration's connect attempts. At most `maxRedirects` redirections per command. Each node
/// gets its own `RedisClient` (one pipelined connection, one connect per command), made from the
/// configuration given with that node's endpoint.
///
/// A command is routed by the slot of the key it names; commands on several keys must keep them in
/// one slot (a hash tag), as Redis Cluster requires.
package actor RedisClusterClient: RedisCommandSending {
    /// The nodes asked for the slot map first.
    package let seeds: [RedisEndpoint]
    /// The most redirections one command follows before its last error is thrown.
    package let maxRedirects: Int
    private let template: RedisClient.Configuration
    private let group: EventLoopGroup
    private let clock: any Clock<Duration>
    private let random: any RandomByteSource
    private var clients: [RedisEndpoint: RedisClient] = [:]
    private var map: RedisSlotMap?
    private var reading: Task<RedisSlotMap, any Error>?
    private var redirects = 0

    /// A client that reads the slot map from `seeds` (tried in order) on its first command.
    /// - Parameter configuration: the settings of every node's client; its endpoint is replaced by the node's.
    package init(seeds: [RedisEndpoint], configuration: RedisClient.Configuration, group: EventLoopGroup, maxRedirects: Int = 5,
                 clock: any Clock<Duration> = ContinuousClock(), random: any RandomByteSource = SecureRandom()) {
        self.seeds = seeds
        self.template = configuration
        self.group = group
        self.maxRedirects = max(1, maxRedirects)
        self.clock = clock
        self.random = random
    }

    /// The redirections followed so far (`MOVED` and `ASK`).
    package var redirectsFollowed: Int { redirects }

    /// Sends `command`, which names `key`, to the node serving the key's slot.
    /// - Throws: `RedisError`, the last one when the redirections ran out.
    package func send(_ command: [RedisArgument], key: String) async throws(RedisError) -> RESPValue {
        try await send(command, slot: RedisHashSlot.of(key))
    }

    /// Sends `command` to the node serving the slot of the key at its position 1, where every command
    /// Tandem sends names its key (`GET key`, `HSET key …`, `XRANGE key …`, `SPUBLISH channel …`);
    /// a command without one (`PING`) goes to the node of slot 0.
    /// - Throws: `RedisError`, the last one when the redirections ran out.
    package func send(_ command: [RedisArgument]) async throws(RedisError) -> RESPValue {
        try await send(command, slot: Self.slot(of: command))
    }

    /// Sends `commands` (each routed as `send(_:)` routes it) in one pipeline per node, the nodes'
    /// pipelines at once; the replies come back in the order of `commands`. A command a node redirected
    /// is sent again alone, following the redirection.
    /// - Throws: `RedisError` only when the slot map cannot be read; per-command failures are in the results.
    package func pipeline(_ commands: [[RedisArgument]]) async throws(RedisError) -> [Result<RESPValue, RedisError>] {
        let map = try await slotMap()
        var groups: [RedisEndpoint: [Int]] = [:]
        var results = [Result<RESPValue, RedisError>?](repeating: nil, count: commands.count)
        for (index, command) in commands.enumerated() {
            let slot = Self.slot(of: command)
            guard let endpoint = map.endpoint(for: slot) else {
                results[index] = .failure(Self.unserved(slot))
                continue
            }
            groups[endpoint, default: []].append(index)
        }
        let replies = await withTaskGroup(of: (indices: [Int], replies: [Result<RESPValue, RedisError>]).self) { tasks in
            for (endpoint, indices) in groups {
                let client = client(for: endpoint)
                tasks.addTask {
                    do throws(RedisError) {
                        return (indices, try await client.pipeline(indices.map { commands[$0] }))
                    } catch {
                        return (indices, Array(repeating: .failure(error), count: indices.count))
                    }
                }
            }
            var all: [(indices: [Int], replies: [Result<RESPValue, RedisError>])] = []
            for await group in tasks { all.append(group) }
            return all
        }
        for group in replies {
            for (index, reply) in zip(group.indices, group.replies) { results[index] = reply }
        }
        for index in results.indices {
            guard case .failure(let error)? = results[index], RedisRedirect(error, fallbackHost: "") != nil else { continue }
            do throws(RedisError) {
                results[index] = .success(try await send(commands[index]))
            } catch {
                results[index] = .failure(error)
            }
        }
        // A node's pipeline answers every command it was given; a missing reply is a broken connection's.
        return results.map { $0 ?? .failure(.unexpectedReply(command: "pipeline", reply: "no reply")) }
    }

    /// Runs `script` on the node serving the slot of `keys` (all in one slot), as
    /// `RedisClient.evaluate(_:keys:arguments:appendingServerRunID:)` does.
    /// - Throws: `RedisError`, including the script's own errors as `.server`.
    package func evaluate(_ script: RedisScript, keys: [String], arguments: [RedisArgument],
                          appendingServerRunID: Bool) async throws(RedisError) -> RESPValue {
        guard let first = keys.first else { throw .unexpectedReply(command: "EVALSHA", reply: "a script sent to a cluster must name a key") }
        return try await route(slot: RedisHashSlot.of(first)) { client, asking throws(RedisError) in
            guard asking else {
                return try await client.evaluate(script, keys: keys, arguments: arguments, appendingServerRunID: appendingServerRunID)
            }
            // The target's run id is unknown on this path: the script reads it itself from an empty one.
            let tail = [RedisArgument(Int64(keys.count))] + keys.map { RedisArgument($0) } + arguments + (appendingServerRunID ? [""] : [])
            do throws(RedisError) {
                return try await Self.afterAsking(["EVALSHA", RedisArgument(script.sha1)] + tail, on: client)
            } catch {
                guard error.isNoScript else { throw error }
                return try await Self.afterAsking(["EVAL", RedisArgument(script.source)] + tail, on: client)
            }
        }
    }

    /// True: each shard holds its slots' keys.
    package nonisolated var isSharded: Bool { true }

    /// The primary serving the slot of each key (a sharded channel hashes like a key).
    /// - Throws: `RedisError` when the slot map cannot be read or no node serves a key's slot.
    package func servers(for keys: [String]) async throws(RedisError) -> [RedisEndpoint] {
        let map = try await slotMap()
        var nodes: [RedisEndpoint] = []
        nodes.reserveCapacity(keys.count)
        for key in keys {
            let slot = RedisHashSlot.of(key)
            guard let endpoint = map.endpoint(for: slot) else { throw Self.unserved(slot) }
            nodes.append(endpoint)
        }
        return nodes
    }

    /// Opens a subscriber connection (sharded Pub/Sub) to `node`, in one attempt.
    /// - Throws: `RedisError.unavailable`.
    package func subscriber(at node: RedisEndpoint, receive: @escaping @Sendable (RedisSubscriber.Push) -> Void,
                            closed: @escaping @Sendable (RedisError) -> Void) async throws(RedisError) -> RedisSubscriber {
        try await RedisSubscriber.connect(to: node, on: group.next(), limits: template.limits, timeout: template.connectTimeout,
                                          receive: receive, closed: closed)
    }

    /// One key per primary: `prefix:{n}` with the smallest `n` whose slot that primary serves.
    /// - Throws: `RedisError` when the slot map cannot be read.
    package func shardKeys(prefix: String) async throws(RedisError) -> [String] {
        let map = try await slotMap()
        let primaries = map.endpoints
        var keys: [RedisEndpoint: String] = [:]
        var tag = 0
        // Three primaries need a few tags; an even split of 16,384 slots over N primaries needs about N·ln N.
        while keys.count < primaries.count, tag < 1 << 20 {
            let key = "\(prefix):{\(tag)}"
            if let endpoint = map.endpoint(for: RedisHashSlot.of(key)), keys[endpoint] == nil { keys[endpoint] = key }
            tag += 1
        }
        return primaries.compactMap { keys[$0] }
    }

    /// Reads the slot map again (keeping the current one when no node answers).
    package func refreshRouting() async {
        _ = try? await readMap()
    }

    /// The slot map as last read, reading it first when there is none.
    /// - Throws: `RedisError` when no seed or known node answers.
    package func slotMap() async throws(RedisError) -> RedisSlotMap {
        if let map { return map }
        // The first read waits for the cluster as one server's client waits for its server.
        var attempt = 1
        while true {
            do {
                return try await readMap()
            } catch {
                guard attempt < template.maxConnectAttempts, case .unavailable = error else { throw error }
                do {
                    try await clock.sleep(for: template.backoff.delay(afterFailures: attempt, random: random))
                } catch {
                    throw .unavailable(endpoint: seeds.first ?? RedisEndpoint(host: "127.0.0.1"), attempts: attempt, lastError: "cancelled")
                }
                attempt += 1
            }
        }
    }

    /// Closes every node's connection; the next command opens them again.
    package func close() async {
        for client in clients.values { await client.close() }
    }

    // MARK: - Routing

    private func route(slot: Int, _ body: (RedisClient, _ asking: Bool) async throws(RedisError) -> RESPValue) async throws(RedisError) -> RESPValue {
        var map = try await slotMap()
        guard var endpoint = map.endpoint(for: slot) else { throw Self.unserved(slot) }
        var asking = false
        var hops = 0, unreachable = 0
        while true {
            do {
                return try await body(client(for: endpoint), asking)
            } catch {
                asking = false
                if let redirect = RedisRedirect(error, fallbackHost: endpoint.host), redirect.slot == slot {
                    guard hops < maxRedirects else { throw error }
                    hops += 1
                    redirects += 1
                    endpoint = redirect.endpoint
                    switch redirect.kind {
                    case .ask:
                        asking = true
                    case .moved:
                        // The slot moved for good, and usually with others (a reshard or a failover): read
                        // the map again for those; for this slot the redirect wins.
                        map = ((try? await readMap()) ?? map).following(slot, movedTo: redirect.endpoint)
                        self.map = map
                    }
                    continue
                }
                guard case .unavailable = error else { throw error }
                // The node is gone: a replica serves its slots now, or will once the other primaries
                // voted (`cluster-node-timeout`). Read the map again at once, then between waits, as
                // patient as one server's client (its connect attempts and backoff).
                unreachable += 1
                guard unreachable < template.maxConnectAttempts else { throw error }
                if let read = try? await readMap() { map = read }
                if let next = map.endpoint(for: slot), next != endpoint {
                    endpoint = next
                    continue
                }
                do {
                    try await clock.sleep(for: template.backoff.delay(afterFailures: unreachable, random: random))
                } catch {
                    throw .unavailable(endpoint: endpoint, attempts: unreachable, lastError: "cancelled")
                }
            }
        }
    }

    private func send(_ command: [RedisArgument], slot: Int) async throws(RedisError) -> RESPValue {
        try await route(slot: slot) { client, asking throws(RedisError) in
            asking ? try await Self.afterAsking(command, on: client) : try await client.send(command)
        }
    }

    /// The slot of the key a command names at position 1 (slot 0 for a command without one).
    private static func slot(of command: [RedisArgument]) -> Int {
        command.count > 1 ? RedisHashSlot.of(command[1].bytes) : 0
    }

    private static func afterAsking(_ command: [RedisArgument], on client: RedisClient) async throws(RedisError) -> RESPValue {
        let replies = try await client.pipeline([["ASKING"], command])
        guard replies.count == 2 else { throw .unexpectedReply(command: "ASKING", reply: "\(replies)") }
        _ = try replies[0].get()
        return try replies[1].get()
    }

    private static func unserved(_ slot: Int) -> RedisError {
        .unexpectedReply(command: "CLUSTER SLOTS", reply: "no node serves slot \(slot): is every slot of the cluster assigned (redis-cli --cluster check)?")
    }

    private func client(for endpoint: RedisEndpoint) -> RedisClient {
        if let client = clients[endpoint] { return client }
        var configuration = template
        configuration.endpoint = endpoint
        // One connect per command: when a node does not answer, `route` reads the map again before it
        // waits and tries again, since a replica may have taken over.
        configuration.maxConnectAttempts = 1
        let client = RedisClient(configuration: configuration, group: group, clock: clock, random: random)
        clients[endpoint] = client
        return client
    }

    /// Reads `CLUSTER SLOTS` from the seeds, then from the nodes of the current map; one read at a time.
    private func readMap() async throws(RedisError) -> RedisSlotMap {
        let task: Task<RedisSlotMap, any Error>
        if let reading {
            task = reading
        } else {
            let candidates = seeds + (map?.endpoints ?? []).filter { !seeds.contains($0) }
            task = Task { try await self.readMap(from: candidates) }
            reading = task
        }
        do {
            let read = try await task.value
            if reading == task { reading = nil }
            map = read
            return read
        } catch {
            if reading == task { reading = nil }
            throw error as? RedisError ?? .unexpectedReply(command: "CLUSTER SLOTS", reply: "\(error)")
        }
    }

    private func readMap(from candidates: [RedisEndpoint]) async throws(RedisError) -> RedisSlotMap {
        var lastError: RedisError = .unavailable(endpoint: candidates.first ?? RedisEndpoint(host: "127.0.0.1"), attempts: 0,
                                                 lastError: "no node of the cluster was given")
        for endpoint in candidates {
            do throws(RedisError) {
                let reply = try await client(for: endpoint).send(["CLUSTER", "SLOTS"])
                let read = try RedisSlotMap(clusterSlots: reply, fallbackHost: endpoint.host)
                if !read.ranges.isEmpty { return read }
                lastError = .unexpectedReply(command: "CLUSTER SLOTS", reply: "\(endpoint) serves no slot yet")
            } catch {
                lastError = error
            }
        }
        throw lastError
    }
}
