import TandemProtocol
import TandemRedis
import TandemServer

/// Webhooks of a cluster, kept in Redis: what nodes report, the decisions that need the whole
/// cluster (who is in a room, one `state.changed` window per room), the events waiting to be taken
/// and the deliveries of the one node that holds the delivery lease.
///
/// Every key carries the `{webhooks}` hash tag, so each script touches one slot (Redis Cluster puts
/// them on one shard: webhooks are a few events per session, not per patch):
/// - `members:R` hash client → node␟participant fields: who the cluster counts in room R;
/// - `node:N` set of room␟client: whom node N reported, to reap them when N stops refreshing
///   its entry in the `nodes` sorted set (score: when it lapses);
/// - `change:R` hash (rev, truncated) + `change-paths:R` set: room R's open window, due at its
///   score in `changes`; `reported:R`: the rev the last window closed with (a day's memory);
/// - `events` stream: events in the order the scripts decided them, until the lease holder takes them;
/// - `lease`: the delivering node's token; `seq`, `deliveries` (seq → record) and `retries`
///   (seq → failures:due): the delivery queue.
///
/// Stateless apart from its settings; safe from any task.
struct RedisWebhookLog: Sendable {
    /// What one lease holder's tick turned into deliveries.
    struct Taken: Sendable, Equatable {
        /// New deliveries, in `seq` order.
        var deliveries: [WebhookDelivery]
        /// Whether events were left in the stream (the tick took as many as it may).
        var more: Bool
    }

    let client: any RedisCommandSending
    let prefix: String
    /// A changed room's window: at most one `state.changed` per room per this many milliseconds.
    let debounce: Int64

    init(client: any RedisCommandSending, keyPrefix: String = "tandem", debounce: Int64) {
        self.client = client
        prefix = "\(keyPrefix):{webhooks}"
        self.debounce = debounce
    }

    private var keys: [String] {
        ["events", "changes", "nodes"].map { "\(prefix):\($0)" }
    }

    // MARK: - Reporting (every node)

    /// Records `facts` of `node`, in order, and appends the events they decide; refreshes the node's
    /// entry until `nodeExpiry`. Atomic: all of them or, on a failure, none.
    /// - Parameter idPrefix: 20 random hex digits; the events' ids are it and a counter.
    /// - Throws: `RedisError`.
    func report(_ facts: [WebhookFact], node: String, now: Int64, nodeExpiry: Int64, idPrefix: String) async throws(RedisError) {
        guard !facts.isEmpty else { return }
        var arguments = [prefix, node, "\(now)", "\(nodeExpiry)", "\(debounce)", idPrefix, "\(WebhookEmitter.maxPaths)"].map { RedisArgument($0) }
        for fact in facts { arguments += fact.arguments.map { RedisArgument($0) } }
        _ = try await client.evaluate(Self.reportScript, keys: keys + ["\(prefix):node:\(node)"], arguments: arguments)
    }

    /// Refreshes `node`'s entry until `expiry`; false when the entry had lapsed and was reaped (or
    /// never existed): the node's participants must be reported again.
    /// - Throws: `RedisError`.
    func heartbeat(node: String, expiry: Int64) async throws(RedisError) -> Bool {
        let reply = try await client.evaluate(Self.heartbeatScript, keys: [keys[2]], arguments: [RedisArgument(node), RedisArgument(expiry)])
        return reply.integer == 1
    }

    /// Removes `node`'s entry when it counts nobody any more (a clean shutdown).
    /// - Throws: `RedisError`.
    func forget(node: String) async throws(RedisError) {
        _ = try await client.evaluate(Self.forgetScript, keys: [keys[2], "\(prefix):node:\(node)"], arguments: [RedisArgument(node)])
    }

    // MARK: - Delivering (the lease holder)

    /// Takes the delivery lease for `ttl` when nobody holds it.
    /// - Throws: `RedisError`.
    func acquire(token: String, ttl: Int64) async throws(RedisError) -> Bool {
        let reply = try await client.send(["SET", RedisArgument("\(prefix):lease"), RedisArgument(token), "NX", "PX", RedisArgument(ttl)])
        return reply.string == "OK"
    }

    /// Gives the lease up, if `token` still holds it.
    /// - Throws: `RedisError`.
    func release(token: String) async throws(RedisError) {
        _ = try await client.evaluate(Self.releaseScript, keys: ["\(prefix):lease"], arguments: [RedisArgument(token)])
    }

    /// The lease holder's round: renews the lease for `leaseTTL`, closes the windows due at `now`,
    /// reports the members of nodes whose entry lapsed as left, and turns at most `maxEvents` events
    /// into one delivery per endpoint. Nil when `token` no longer holds the lease (nothing was done).
    /// - Throws: `RedisError`.
    func tick(token: String, now: Int64, leaseTTL: Int64, idPrefix: String, endpoints: [String], maxEvents: Int = 256) async throws(RedisError) -> Taken? {
        let arguments = [prefix, token, "\(now)", "\(leaseTTL)", idPrefix, "\(maxEvents)"].map { RedisArgument($0) } + endpoints.map { RedisArgument($0) }
        let reply = try await client.evaluate(Self.tickScript, keys: keys + ["\(prefix):lease", "\(prefix):seq", "\(prefix):deliveries"],
                                              arguments: arguments)
        guard let flat = reply.array, let held = flat.first?.integer, flat.count % 2 == 0 || held == 0 else {
            throw .unexpectedReply(command: "webhook tick", reply: "\(reply)")
        }
        guard held == 1 else { return nil }
        var deliveries: [WebhookDelivery] = []
        for index in stride(from: 2, to: flat.count, by: 2) {
            guard let seq = flat[index].integer, case .bulkString(let record) = flat[index + 1] else {
                throw .unexpectedReply(command: "webhook tick", reply: "\(reply)")
            }
            deliveries.append(try Self.delivery(seq: seq, record: record, failures: 0, due: now))
        }
        return Taken(deliveries: deliveries, more: flat[1].integer == 1)
    }

    /// Every waiting delivery with its retry state, in `seq` order (when a node takes the lease).
    /// - Throws: `RedisError`.
    func pending() async throws(RedisError) -> [WebhookDelivery] {
        let records = try await scan("\(prefix):deliveries")
        let retries = try await scan("\(prefix):retries")
        var deliveries: [WebhookDelivery] = []
        for (field, record) in records {
            guard let seq = Int64(String(decoding: field, as: UTF8.self)) else { continue }
            var failures = 0, due: Int64 = 0
            if let retry = retries[field].map({ String(decoding: $0, as: UTF8.self) }), let colon = retry.firstIndex(of: ":") {
                failures = Int(retry[..<colon]) ?? 0
                due = Int64(retry[retry.index(after: colon)...]) ?? 0
            }
            deliveries.append(try Self.delivery(seq: seq, record: record, failures: failures, due: due))
        }
        return deliveries.sorted { $0.seq < $1.seq }
    }

    /// Removes a delivered or dropped delivery.
    /// - Throws: `RedisError`.
    func remove(seq: Int64) async throws(RedisError) {
        let field = RedisArgument(seq)
        for reply in try await client.pipeline([["HDEL", RedisArgument("\(prefix):deliveries"), field], ["HDEL", RedisArgument("\(prefix):retries"), field]]) {
            _ = try reply.get()
        }
    }

    /// Records a failed try and when the next one is due.
    /// - Throws: `RedisError`.
    func reschedule(seq: Int64, failures: Int, due: Int64) async throws(RedisError) {
        _ = try await client.send(["HSET", RedisArgument("\(prefix):retries"), RedisArgument(seq), RedisArgument("\(failures):\(due)")])
    }

    // MARK: - Internals

    private func scan(_ key: String) async throws(RedisError) -> [[UInt8]: [UInt8]] {
        var cursor = "0"
        var fields: [[UInt8]: [UInt8]] = [:]
        repeat {
            let reply = try await client.send(["HSCAN", RedisArgument(key), RedisArgument(cursor), "COUNT", "1000"])
            guard let parts = reply.array, parts.count == 2, let next = parts[0].string, let flat = parts[1].array, flat.count % 2 == 0 else {
                throw .unexpectedReply(command: "HSCAN", reply: "\(reply)")
            }
            for index in stride(from: 0, to: flat.count, by: 2) {
                guard case .bulkString(let field) = flat[index], case .bulkString(let value) = flat[index + 1] else { continue }
                fields[field] = value
            }
            cursor = next
        } while cursor != "0"
        return fields
    }

    /// A delivery from its record: endpoint, room, id, type, time and the type's fields (JSON),
    /// separated by U+001F (none of them holds one raw: JSON escapes it, endpoints and rooms are
    /// checked at start).
    static func delivery(seq: Int64, record: [UInt8], failures: Int, due: Int64) throws(RedisError) -> WebhookDelivery {
        let parts = record.split(separator: 0x1F, maxSplits: 5, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard parts.count == 6, let kind = WebhookEvent.Kind(rawValue: parts[3]), let time = Int64(parts[4]),
              case .object(let fields)? = try? JSONValue.parse(parts[5]) else {
            throw .unexpectedReply(command: "webhook delivery \(seq)", reply: String(decoding: record, as: UTF8.self))
        }
        let event = WebhookEvent(id: parts[2], kind: kind, time: time, room: parts[1], fields: fields)
        return WebhookDelivery(seq: seq, endpoint: parts[0], room: parts[1], eventID: parts[2], body: event.body, created: time,
                               failures: failures, due: max(due, 0))
    }

    // MARK: - Scripts

    // The report and tick scripts run after `Scripts/Lua/webhook-prelude.lua`: `emit` appends one event,
    // `closeChange` turns a room's open window into its `state.changed`, `leave` reports a member of a
    // node as left (and the session as ended when it was the last), unless the cluster counts the client
    // elsewhere or not at all.

    /// KEYS: events, changes, nodes, node:N. ARGV: prefix, node, now, node expiry, debounce ms, id
    /// prefix, paths per window, then facts (kind, room, a, b, count, count extras).
    static let reportScript = RedisScript(lua: PackageResources.webhook_prelude_lua, PackageResources.webhook_report_lua)

    /// KEYS: events, changes, nodes, lease, seq, deliveries. ARGV: prefix, token, now, lease ttl, id
    /// prefix, events to take at most, then the endpoints. Reply: {0} without the lease, else
    /// {1, more, seq, record, seq, record…}.
    static let tickScript = RedisScript(lua: PackageResources.webhook_prelude_lua, PackageResources.webhook_tick_lua)

    /// KEYS: nodes. ARGV: node, expiry. Reply: 1 when the node's entry was there.
    static let heartbeatScript = RedisScript(lua: PackageResources.webhook_heartbeat_lua)

    /// KEYS: nodes, node:N. ARGV: node.
    static let forgetScript = RedisScript(lua: PackageResources.webhook_forget_lua)

    /// KEYS: lease. ARGV: token.
    static let releaseScript = RedisScript(lua: PackageResources.webhook_release_lua)
}
