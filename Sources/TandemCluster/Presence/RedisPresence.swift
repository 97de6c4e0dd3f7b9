import TandemRedis
import TandemProtocol

/// Presence across nodes: each node keeps the entries of its own participants alive by refreshing
/// them within the TTL; entries of a node that stopped (crash, `kill -9`, partition) lapse after the
/// TTL, so its participants leave everywhere without anyone having to notice the failure.
///
/// Per room R: a sorted set `P:{R}:presence` of members `node␟key` (`PresenceEntry.key(of:)`) scored by expiry, and a hash
/// `P:{R}:presence-data` with their payloads. Times are milliseconds since 1970 passed in by the
/// caller from its injected clock, so tests need no waiting; in production the nodes' clocks must
/// agree to well within the TTL (NTP). Stateless apart from its settings; safe from any task.
struct RedisPresence: Sendable {
    /// The connection to Redis (shared, pipelined).
    let client: any RedisCommandSending
    /// The prefix of every key.
    let keyPrefix: String
    /// How long an entry lives without a refresh; refresh every TTL/3 or so.
    let ttl: Duration

    /// Presence over `client` with entries living `ttl` (default 15 s).
    init(client: any RedisCommandSending, keyPrefix: String = "tandem", ttl: Duration = .seconds(15)) {
        self.client = client
        self.keyPrefix = keyPrefix
        self.ttl = ttl
    }

    private static let separator = "\u{1F}"

    /// Adds or refreshes the entries of `node`'s participants in `room`, each living until `now + ttl`.
    /// - Parameter participants: key and payload of each participant to refresh.
    /// - Throws: `RedisError`.
    func refresh(room: String, node: String, participants: [(key: String, data: [UInt8])], now: Int64) async throws(RedisError) {
        guard !participants.isEmpty else { return }
        var arguments: [RedisArgument] = [RedisArgument(now + ttlMilliseconds), RedisArgument(ttlMilliseconds)]
        for participant in participants {
            arguments.append(RedisArgument(node + Self.separator + participant.key))
            arguments.append(RedisArgument(bytes: participant.data))
        }
        _ = try await client.evaluate(Self.refreshScript, keys: keys(room: room), arguments: arguments)
    }

    /// Removes one participant of `node` at once (a clean leave).
    /// - Throws: `RedisError`.
    func remove(room: String, node: String, key: String) async throws(RedisError) {
        let member = RedisArgument(node + Self.separator + key)
        let keys = keys(room: room)
        let replies = try await client.pipeline([["ZREM", RedisArgument(keys[0]), member], ["HDEL", RedisArgument(keys[1]), member]])
        for reply in replies { _ = try reply.get() }
    }

    /// The entries of `room` that are live at `now`, ordered by key then node; lapsed entries are
    /// deleted on the way.
    /// - Throws: `RedisError`.
    func live(room: String, now: Int64) async throws(RedisError) -> [PresenceEntry] {
        let reply = try await client.evaluate(Self.liveScript, keys: keys(room: room), arguments: [RedisArgument(now)])
        guard let flat = reply.array, flat.count % 3 == 0 else { throw .unexpectedReply(command: "presence script", reply: "\(reply)") }
        var entries: [PresenceEntry] = []
        for index in stride(from: 0, to: flat.count, by: 3) {
            guard let member = flat[index].string, let expiry = flat[index + 1].string.flatMap(Double.init),
                  case .bulkString(let data) = flat[index + 2],
                  let split = member.range(of: Self.separator) else {
                throw .unexpectedReply(command: "presence script", reply: "\(reply)")
            }
            entries.append(PresenceEntry(node: String(member[..<split.lowerBound]), key: String(member[split.upperBound...]),
                                         data: data, expiresAt: Int64(expiry)))
        }
        return entries.sorted { ($0.key, $0.node) < ($1.key, $1.node) }
    }

    private func keys(room: String) -> [String] {
        ["presence", "presence-data"].map { "\(keyPrefix):{\(room)}:\($0)" }
    }

    private var ttlMilliseconds: Int64 {
        ttl.totalMilliseconds
    }

    /// ARGV: expiry, ttl ms, then member and payload pairs. Both keys expire with the TTL too, so a room
    /// that no node refreshes any more leaves nothing behind.
    static let refreshScript = RedisScript(lua: PackageResources.presence_refresh_lua)

    /// ARGV: now. Deletes entries whose expiry is at or before now; returns member, expiry, payload triples.
    static let liveScript = RedisScript(lua: PackageResources.presence_live_lua)
}
