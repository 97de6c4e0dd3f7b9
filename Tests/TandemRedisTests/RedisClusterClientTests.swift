import Foundation
import Testing
import TandemRedis
import TandemTestSupport
import TandemWire

@Suite("Redis Cluster routing: slots, the slot map, redirections")
struct RedisSlotRoutingTests {
    @Test("a key's slot is CRC16 (XMODEM) of the key or of its hash tag, modulo 16,384")
    func hashSlots() {
        #expect(RedisHashSlot.of("123456789") == 0x31C3)
        #expect(RedisHashSlot.of("{user1000}.following") == RedisHashSlot.of("user1000"))
        #expect(RedisHashSlot.of("{user1000}.followers") == RedisHashSlot.of("{user1000}.following"))
        #expect(RedisHashSlot.of("foo{}{bar}") != RedisHashSlot.of("bar"), "an empty tag: the whole key")
        #expect(RedisHashSlot.of("foo{{bar}}zap") == RedisHashSlot.of("{bar"), "the tag ends at the first closing brace")
        #expect(RedisHashSlot.of("foo{bar}{zap}") == RedisHashSlot.of("bar"), "only the first tag counts")
        #expect(RedisHashSlot.of("tandem:{room}:meta") == RedisHashSlot.of("tandem:{room}:log"))
    }

    @Test("CLUSTER SLOTS: ranges in slot order, primaries only, an unannounced host taken from where the reply came; MOVED patches one slot")
    func slotMaps() throws {
        func node(_ host: String, _ port: Int64) -> RESPValue { .array([.bulkString(Array(host.utf8)), .integer(port), .bulkString(Array("id".utf8))]) }
        let reply = RESPValue.array([
            .array([.integer(8_192), .integer(16_383), node("", 7002), node("10.0.0.9", 7102)]),
            .array([.integer(0), .integer(8_191), node("10.0.0.1", 7001)]),
        ])
        let map = try RedisSlotMap(clusterSlots: reply, fallbackHost: "seed")
        #expect(map.endpoint(for: 0) == RedisEndpoint(host: "10.0.0.1", port: 7001))
        #expect(map.endpoint(for: 8_191) == RedisEndpoint(host: "10.0.0.1", port: 7001))
        #expect(map.endpoint(for: 8_192) == RedisEndpoint(host: "seed", port: 7002))
        #expect(map.endpoints == [RedisEndpoint(host: "10.0.0.1", port: 7001), RedisEndpoint(host: "seed", port: 7002)])
        let moved = map.moving(100, to: RedisEndpoint(host: "seed", port: 7002))
        #expect(moved.endpoint(for: 99) == RedisEndpoint(host: "10.0.0.1", port: 7001))
        #expect(moved.endpoint(for: 100) == RedisEndpoint(host: "seed", port: 7002))
        #expect(moved.endpoint(for: 101) == RedisEndpoint(host: "10.0.0.1", port: 7001))
        // A map read from a node the reshard has not reached yet: the MOVED answer wins for its slot.
        let target = RedisEndpoint(host: "10.0.0.9", port: 7009)
        let followed = map.following(100, movedTo: target)
        #expect(followed.endpoint(for: 100) == target && followed.endpoint(for: 99) == map.endpoint(for: 99))
        #expect(moved.following(100, movedTo: RedisEndpoint(host: "seed", port: 7002)) == moved, "a read that agrees is kept as read")
        #expect(RedisSlotMap(ranges: []).endpoint(for: 5) == nil)
        #expect(throws: RedisError.self) { try RedisSlotMap(clusterSlots: .array([.array([.integer(5), .integer(2), node("h", 1)])]), fallbackHost: "") }
        #expect(throws: RedisError.self) { try RedisSlotMap(clusterSlots: .integer(1), fallbackHost: "") }
    }

    @Test("MOVED and ASK replies name the slot and the node; other errors are no redirection")
    func redirects() {
        #expect(RedisRedirect(.server(code: "MOVED", message: "MOVED 3999 127.0.0.1:6381"), fallbackHost: "x")
                == RedisRedirect(kind: .moved, slot: 3_999, endpoint: RedisEndpoint(host: "127.0.0.1", port: 6_381)))
        #expect(RedisRedirect(.server(code: "ASK", message: "ASK 12 :7000"), fallbackHost: "seed")
                == RedisRedirect(kind: .ask, slot: 12, endpoint: RedisEndpoint(host: "seed", port: 7_000)))
        #expect(RedisRedirect(.server(code: "MOVED", message: "MOVED 99999 h:1"), fallbackHost: "") == nil)
        #expect(RedisRedirect(.server(code: "ERR", message: "ERR no"), fallbackHost: "") == nil)
        #expect(RedisRedirect(.connectionClosed(endpoint: RedisEndpoint(host: "h")), fallbackHost: "") == nil)
    }

    @Test("a refusal for where keys live may go again routed anew; other errors may not")
    func misroutedErrors() {
        #expect(RedisError.server(code: "MOVED", message: "MOVED 1 h:1").isMisrouted)
        #expect(RedisError.server(code: "CROSSSLOT", message: "CROSSSLOT Keys in request don't hash to the same slot").isMisrouted)
        #expect(RedisError.server(code: "ERR", message: "ERR Error running script: Script attempted to access a non local key in a cluster node").isMisrouted)
        #expect(!RedisError.server(code: "OOM", message: "OOM command not allowed when used memory > 'maxmemory'").isMisrouted)
        #expect(!RedisError.connectionClosed(endpoint: RedisEndpoint(host: "h")).isMisrouted)
    }
}

@Suite("Redis Cluster client against a real 3-shard cluster", .serialized, .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct RedisClusterClientTests {
    static let script = RedisScript("redis.call('HSET', KEYS[1], 'n', ARGV[1]); return {redis.call('HGET', KEYS[1], 'n'), ARGV[#ARGV]}")

    /// Runs `body` with a fresh 3-shard cluster, a group and a client seeded with the first shard only.
    static func with(_ body: (RedisClusterProcess, RedisClusterClient, EventLoopGroup) async throws -> Void) async throws {
        try await RedisClusterProcess.with { cluster, group in
            let client = cluster.client(group: group)
            do {
                try await body(cluster, client, group)
            } catch {
                await client.close()
                throw error
            }
            await client.close()
        }
    }

    @Test("commands and scripts reach the shard of their key's slot, which agrees with CLUSTER KEYSLOT; every shard gets its share")
    func commandsReachTheirShard() async throws {
        try await Self.with { cluster, client, group in
            let probe = try await RedisConnection.connect(to: cluster.endpoint(0), on: group.next())
            defer { probe.close() }
            for n in 0..<200 {
                let key = n % 2 == 0 ? "k\(n)" : "tandem:{room-\(n)}:meta"
                #expect(try await probe.send(["CLUSTER", "KEYSLOT", RedisArgument(key)]).integer == Int64(RedisHashSlot.of(key)), "\(key)")
                _ = try await client.send(["SET", RedisArgument(key), RedisArgument("v\(n)")], key: key)
                #expect(try await client.send(["GET", RedisArgument(key)], key: key).string == "v\(n)")
            }
            for index in 0..<3 {
                let node = try await RedisConnection.connect(to: cluster.endpoint(index), on: group.next())
                #expect((try await node.send(["DBSIZE"]).integer ?? 0) > 30, "shard \(index) holds its share")
                node.close()
            }
            #expect(await client.redirectsFollowed == 0, "the map was right from the start")
            for room in ["a", "b", "c", "d", "e", "f"] {
                let reply = try await client.evaluate(Self.script, keys: ["tandem:{\(room)}:meta"], arguments: ["7"], appendingServerRunID: true)
                #expect(reply.array?.first?.string == "7")
                #expect((reply.array?.last?.string ?? "").count == 40, "the run id of the node that ran it")
            }
        }
    }

    @Test("a command is routed by the key at its position 1; a pipeline goes to every shard at once and its replies come back in order, a redirected one followed")
    func pipelinesSpanShards() async throws {
        try await Self.with { cluster, client, group in
            let keys = (0..<60).map { "tandem:{p\($0)}:meta" }
            for (n, key) in keys.enumerated() { _ = try await client.send(["SET", RedisArgument(key), RedisArgument("v\(n)")]) }
            #expect(try await client.send(["GET", RedisArgument(keys[7])]).string == "v7")
            #expect(try await client.send(["PING"]).string == "PONG", "a command without a key goes to the node of slot 0")
            let owners = Set(keys.map { cluster.shard(of: $0) })
            #expect(owners.count == 3, "the keys span every shard")
            // One key's slot moves to another shard: the pipeline's command for it is redirected and followed.
            let moving = keys[11]
            let owner = cluster.shard(of: moving)
            try await cluster.migrate(RedisHashSlot.of(moving), from: owner, to: (owner + 1) % 3, group: group)
            let replies = try await client.pipeline(keys.map { ["GET", RedisArgument($0)] })
            #expect(replies.map { try? $0.get().string } == (0..<60).map { "v\($0)" })
            #expect(await client.redirectsFollowed == 1)
        }
    }

    @Test("after a slot moved to another shard, the client follows MOVED, reads the map again and goes there directly from then on")
    func followsMoved() async throws {
        try await Self.with { cluster, client, group in
            let key = "tandem:{moving}:meta"
            let slot = RedisHashSlot.of(key)
            _ = try await client.send(["SET", RedisArgument(key), "before"], key: key)
            let owner = cluster.shard(ofSlot: slot)
            let other = (owner + 1) % 3
            try await cluster.migrate(slot, from: owner, to: other, group: group)
            #expect(try await client.send(["GET", RedisArgument(key)], key: key).string == "before")
            #expect(await client.redirectsFollowed == 1)
            #expect(try await client.slotMap().endpoint(for: slot) == cluster.endpoint(other))
            let reply = try await client.evaluate(Self.script, keys: ["tandem:{moving}:hash"], arguments: ["8"])
            #expect(reply.array?.first?.string == "8")
            #expect(await client.redirectsFollowed == 1, "the new map sends it straight to its shard")
        }
    }

    @Test("when a primary dies, a command for its slots waits for the failover, reading the map again between waits, and reaches the promoted replica")
    func followsAFailover() async throws {
        try await RedisClusterProcess.with(replicas: true) { cluster, group in
            // Patient enough for `cluster-node-timeout` (2 s here) and the election.
            let client = cluster.client(group: group, maxConnectAttempts: 20)
            let key = "tandem:{failing}:meta"
            let shard = cluster.shard(of: key)
            _ = try await client.send(["SET", RedisArgument(key), "before"], key: key)
            try await cluster.awaitReplication(shard: shard, group: group)
            await cluster.killPrimary(shard: shard)
            #expect(try await client.send(["GET", RedisArgument(key)], key: key).string == "before")
            try await cluster.awaitFailover(shard: shard, group: group)
            #expect(try await client.slotMap().endpoint(for: RedisHashSlot.of(key)) == cluster.endpoint(shard))
            await client.close()
        }
    }

    @Test("while a slot migrates, a key already gone from the source is reached with ASK and ASKING, and the map stays as it is")
    func followsAsk() async throws {
        try await Self.with { cluster, client, group in
            let key = "tandem:{asked}:meta"
            let slot = RedisHashSlot.of(key)
            _ = try await client.slotMap()
            let owner = cluster.shard(ofSlot: slot)
            let other = (owner + 1) % 3
            try await cluster.migrate(slot, from: owner, to: other, group: group, finish: false)
            // The key does not exist on the source: the source answers ASK, the target takes it.
            _ = try await client.send(["SET", RedisArgument(key), "there"], key: key)
            #expect(await client.redirectsFollowed == 1)
            let hash = "tandem:{asked}:hash"
            let reply = try await client.evaluate(Self.script, keys: [hash], arguments: ["9"], appendingServerRunID: true)
            #expect(reply.array?.first?.string == "9")
            #expect(reply.array?.last?.string == "", "the target's run id is not known on this path: empty, as the scripts that read it take it")
            #expect(await client.redirectsFollowed == 2, "ASK does not change the map: every command is asked again")
            #expect(try await client.slotMap().endpoint(for: slot) == cluster.endpoint(owner))
            let target = try await RedisConnection.connect(to: cluster.endpoint(other), on: group.next())
            defer { target.close() }
            let onTarget = await target.pipeline([["ASKING"], ["HGET", RedisArgument(hash), "n"], ["ASKING"], ["GET", RedisArgument(key)]])
            #expect(try onTarget[1].get().string == "9" && onTarget[3].get().string == "there", "both landed on the target")
        }
    }
}
