/// What Tandem asks of Redis, served alike by one server (`RedisClient`) and by a Redis Cluster
/// (`RedisClusterClient`): commands, pipelines and scripts routed to where their keys live, and the
/// subscriber connections of sharded Pub/Sub, one per shard.
///
/// Every command names its key at position 1 and every script its keys, all in one slot (the `{R}` hash
/// tag), so the same calls work on both; `isSharded` says when a call must not name keys of several slots.
package protocol RedisCommandSending: Sendable {
    /// True when keys of different slots may live on different servers: one command or script must then
    /// name keys of one slot only.
    var isSharded: Bool { get }

    /// Sends `command` and returns its reply.
    /// - Throws: `RedisError`; an error reply is `.server`.
    func send(_ command: [RedisArgument]) async throws(RedisError) -> RESPValue

    /// Sends `commands` at once and returns one result per command, in order.
    /// - Throws: `RedisError` when nothing could be sent.
    func pipeline(_ commands: [[RedisArgument]]) async throws(RedisError) -> [Result<RESPValue, RedisError>]

    /// Runs `script` (by its SHA-1, loading it when the server lacks it) with `keys` and `arguments`;
    /// `appendingServerRunID` adds the run id of the server that runs it as the last argument.
    /// - Throws: `RedisError`, the script's own errors as `.server`.
    func evaluate(_ script: RedisScript, keys: [String], arguments: [RedisArgument],
                  appendingServerRunID: Bool) async throws(RedisError) -> RESPValue

    /// The server holding each of `keys` (or sharded channels, which hash alike), in order: where a
    /// command on the key goes and where a subscriber for the channel connects.
    /// - Throws: `RedisError` when the layout of a cluster cannot be read.
    func servers(for keys: [String]) async throws(RedisError) -> [RedisEndpoint]

    /// Opens a subscriber connection (sharded Pub/Sub) to `node`, in one attempt: the subscriber's
    /// owner decides when to try again.
    /// - Throws: `RedisError.unavailable`.
    func subscriber(at node: RedisEndpoint, receive: @escaping @Sendable (RedisSubscriber.Push) -> Void,
                    closed: @escaping @Sendable (RedisError) -> Void) async throws(RedisError) -> RedisSubscriber

    /// One key per server holding data, each `prefix` plus a hash tag of a slot that server owns (a
    /// marker per shard); `[prefix]` on one server. A key's server may change when slots move.
    /// - Throws: `RedisError` when the layout of a cluster cannot be read.
    func shardKeys(prefix: String) async throws(RedisError) -> [String]

    /// Reads the cluster's layout again (a subscriber was told its slot moved); nothing on one server.
    func refreshRouting() async

    /// Closes the connections; the next command opens them again.
    func close() async
}

extension RedisCommandSending {
    /// Runs `script` with `keys` and `arguments`, without the server's run id.
    /// - Throws: `RedisError`, the script's own errors as `.server`.
    package func evaluate(_ script: RedisScript, keys: [String], arguments: [RedisArgument]) async throws(RedisError) -> RESPValue {
        try await evaluate(script, keys: keys, arguments: arguments, appendingServerRunID: false)
    }
}
