import TandemRedis
import TandemServer

/// The removals of every room, shared by the nodes in one Redis hash (`tandem:removals`, field
/// `room␟user`, value the unix second the removal ends, `Int64.max` until a host readmits the user). Room
/// names hold no control characters (`RoomName`), so the separator cannot be forged. Removals are rare and
/// small: one hash on one shard serves every room.
struct ClusterRemovals: SharedRemovals {
    /// The connection to Redis (shared, pipelined).
    let client: any RedisCommandSending
    /// The hash's key.
    let key: String

    init(client: any RedisCommandSending, keyPrefix: String = "tandem") {
        self.client = client
        key = keyPrefix + ":removals"
    }

    private static let separator = "\u{1F}"

    func all() async throws(SequencingError) -> [StoredDenial] {
        let reply = try await redis { () throws(RedisError) in try await client.send(["HGETALL", RedisArgument(key)]) }
        guard let flat = reply.array, flat.count % 2 == 0 else { throw .cluster("Redis: HGETALL \(key) answered \(reply)") }
        var denials: [StoredDenial] = []
        for index in stride(from: 0, to: flat.count, by: 2) {
            guard let field = flat[index].string, let until = flat[index + 1].string.flatMap({ Int64($0) }) else { continue }
            let parts = field.split(separator: Self.separator, maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            denials.append(StoredDenial(room: String(parts[0]), user: String(parts[1]), until: until))
        }
        return denials
    }

    func save(_ denial: StoredDenial) async throws(SequencingError) {
        _ = try await redis { () throws(RedisError) in
            try await client.send(["HSET", RedisArgument(key), RedisArgument(denial.room + Self.separator + denial.user), RedisArgument(denial.until)])
        }
    }

    func delete(room: String, user: String) async throws(SequencingError) -> Bool {
        let reply = try await redis { () throws(RedisError) in
            try await client.send(["HDEL", RedisArgument(key), RedisArgument(room + Self.separator + user)])
        }
        return reply != .integer(0)
    }
}
