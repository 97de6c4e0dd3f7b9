import Testing
@testable import TandemCluster
import TandemRedis
import TandemTestSupport
import TandemWire

/// The sequencer and the follower on a real 3-shard Redis Cluster (`RedisClusterProcess`), through the
/// routing client: rooms live on every shard.
@Suite("Rooms on a sharded Redis Cluster", .serialized, .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct RedisClusterShardTests {
    static let op = RedisRoomSequencerTests.op
    /// Nine rooms, three on each shard of the initial split.
    static let rooms = ["room-0", "room-1", "room-2", "room-3", "room-4", "room-5", "room-6", "room-7", "room-8"]

    static func shard(of room: String, in cluster: RedisClusterProcess) -> Int {
        cluster.shard(of: "tandem:{\(room)}:meta")
    }

    /// Polls until every room has `count` patches, a room is reset, or 30 s passed; the revs seen per room, resets apart.
    static func collect(_ follower: inout RoomLogFollower, rooms: [String], count: Int) async throws -> (revs: [String: [Int64]], resets: [RoomLogEvent]) {
        var revs: [String: [Int64]] = [:]
        var resets: [RoomLogEvent] = []
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(30))
        while rooms.contains(where: { (revs[$0]?.count ?? 0) < count }), resets.isEmpty, clock.now < deadline {
            for event in try await follower.poll() {
                switch event {
                case .patches(let room, let patches): revs[room, default: []] += patches.map(\.rev)
                default: resets.append(event)
                }
            }
        }
        return (revs, resets)
    }

    @Test("a node's coalesced batches for rooms on every shard go one script call per shard; the follower hears each shard on its own subscriber")
    func roomsOnEveryShard() async throws {
        try await RedisClusterProcess.with { cluster, group in
            #expect(Set(Self.rooms.map { Self.shard(of: $0, in: cluster) }) == [0, 1, 2])
            let writer = RedisRoomSequencer(client: cluster.client(group: group), coalescesRooms: true, commitInterval: .milliseconds(2))
            var follower = RoomLogFollower(sequencer: RedisRoomSequencer(client: cluster.client(group: group)), blockTimeout: .milliseconds(20))
            for room in Self.rooms {
                let head = try await writer.open(room: room)
                follower.follow(room: room, epoch: head.epoch, after: head.rev)
            }
            try await Self.resetStats(cluster, group: group)
            let writing = Task {
                try await withThrowingTaskGroup(of: [SequencerOutcome].self) { tasks in
                    for room in Self.rooms {
                        tasks.addTask {
                            var outcomes: [SequencerOutcome] = []
                            for seq in Int64(1)...20 {
                                outcomes.append(try await writer.append(room: room, client: "c", user: "u", seq: seq, ops: Self.op))
                            }
                            return outcomes
                        }
                    }
                    var all: [SequencerOutcome] = []
                    for try await outcomes in tasks { all += outcomes }
                    return all
                }
            }
            let (revs, resets) = try await Self.collect(&follower, rooms: Self.rooms, count: 20)
            let outcomes = try await writing.value
            #expect(outcomes.count == 180 && outcomes.allSatisfy { if case .applied = $0 { true } else { false } }, "\(outcomes.filter { if case .applied = $0 { false } else { true } }.prefix(3))")
            #expect(resets.isEmpty)
            for room in Self.rooms { #expect(revs[room] == Array(1...20), "\(room)") }
            // Calls carry several rooms of one shard: more log entries than script runs.
            let (scripts, entries) = try await Self.calls(cluster, group: group)
            #expect(entries > scripts, "\(entries) room batches in \(scripts) calls")
            // Each room's channel is subscribed once, on its own shard.
            for room in Self.rooms {
                let node = try await RedisConnection.connect(to: cluster.endpoint(Self.shard(of: room, in: cluster)), on: group.next())
                let reply = try await node.send(["PUBSUB", "SHARDNUMSUB", RedisArgument("tandem:{\(room)}:changes")])
                node.close()
                #expect(reply.array?.last?.integer == 1, "\(room): \(reply)")
            }
            follower.close()
        }
    }

    static func resetStats(_ cluster: RedisClusterProcess, group: EventLoopGroup) async throws {
        for index in cluster.nodes.indices {
            let node = try await RedisConnection.connect(to: cluster.endpoint(index), on: group.next())
            _ = try await node.send(["CONFIG", "RESETSTAT"])
            node.close()
        }
    }

    /// Script runs (`EVALSHA` and `EVAL`) and log entries written (`XADD`) over every shard since the last reset.
    static func calls(_ cluster: RedisClusterProcess, group: EventLoopGroup) async throws -> (scripts: Int, entries: Int) {
        var scripts = 0, entries = 0
        for index in cluster.nodes.indices {
            let node = try await RedisConnection.connect(to: cluster.endpoint(index), on: group.next())
            let stats = try await node.send(["INFO", "commandstats"]).string ?? ""
            node.close()
            func count(_ command: String) -> Int {
                guard let line = stats.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("cmdstat_\(command):calls=") }) else { return 0 }
                return Int(line.dropFirst("cmdstat_\(command):calls=".count).prefix { $0.isNumber }) ?? 0
            }
            scripts += count("evalsha") + count("eval")
            entries += count("xadd")
        }
        return (scripts, entries)
    }

    @Test("a call for one shard's rooms whose slots moved meanwhile writes nothing there and goes again one call per slot: every patch once")
    func aStaleShardCallGoesAgainPerSlot() async throws {
        try await RedisClusterProcess.with { cluster, group in
            let writer = RedisRoomSequencer(client: cluster.client(group: group))
            let shard = Self.shard(of: Self.rooms[0], in: cluster)
            let rooms = Self.rooms.filter { Self.shard(of: $0, in: cluster) == shard }
            #expect(rooms.count == 3)
            for room in rooms { _ = try await writer.open(room: room) }
            // The writer's map still puts the last room on its first shard.
            try await cluster.migrate(RedisHashSlot.of(rooms[2]), from: shard, to: (shard + 1) % 3, group: group)
            try await Self.resetStats(cluster, group: group)
            let batches = rooms.map { room in
                RedisRoomSequencer.RoomBatch(room: room, entries: [SequencerEntry(client: "c", user: "u", seq: 1, ops: Self.op)], baseRev: nil, validated: false)
            }
            let outcomes = await writer.appendRouted(batches)
            #expect(outcomes.map { try? $0.get() }.allSatisfy { $0?.count == 1 && { if case .applied(_, 1, 1) = $0?.first { true } else { false } }($0) },
                    "\(outcomes)")
            let (_, entries) = try await Self.calls(cluster, group: group)
            #expect(entries == 3, "each room appended once, none by the refused call")
            for room in rooms { #expect(try await writer.patches(room: room, after: 0).map(\.rev) == [1]) }
        }
    }

    @Test("a shard that stops answering holds up neither the polls nor the other shards' rooms: their patches arrive, its rooms wait")
    func aDeadShardHoldsUpNoOtherRoom() async throws {
        // Long enough that the cluster does not find the shard failed (and stop serving) during the test.
        try await RedisClusterProcess.with(nodeTimeout: .seconds(60)) { cluster, group in
            let dead = Self.shard(of: Self.rooms[0], in: cluster)
            let alive = Self.rooms.first { Self.shard(of: $0, in: cluster) != dead }!
            let writer = RedisRoomSequencer(client: cluster.client(group: group))
            var follower = RoomLogFollower(sequencer: RedisRoomSequencer(client: cluster.client(group: group)), blockTimeout: .milliseconds(5))
            for room in [Self.rooms[0], alive] {
                let head = try await writer.open(room: room)
                follower.follow(room: room, epoch: head.epoch, after: head.rev)
            }
            while !follower.isCaughtUp { _ = try await follower.poll() }
            await cluster.killPrimary(shard: dead)
            for seq in Int64(1)...3 { _ = try await writer.append(room: alive, client: "c", user: "u", seq: seq, ops: Self.op) }
            var revs: [Int64] = []
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(20))
            while revs.count < 3, clock.now < deadline {
                do {
                    for event in try await follower.poll() {
                        guard case .patches(let room, let patches) = event else { Issue.record("unexpected \(event)"); continue }
                        #expect(room == alive)
                        revs += patches.map(\.rev)
                    }
                } catch {
                    // The dead shard's subscriber cannot be opened: reported, and tried again later.
                }
            }
            #expect(revs == [1, 2, 3])
            #expect(follower.positions[Self.rooms[0]]?.rev == 0, "the dead shard's room waits, still followed")
            follower.close()
        }
    }

    @Test("data loss on one shard (FLUSHALL) is caught by that shard's marker: its rooms are reset, the other shards' rooms go on")
    func lossOnOneShard() async throws {
        try await RedisClusterProcess.with { cluster, group in
            let client = cluster.client(group: group)
            let writer = RedisRoomSequencer(client: client)
            var follower = RoomLogFollower(sequencer: RedisRoomSequencer(client: cluster.client(group: group)), blockTimeout: .milliseconds(5))
            for room in Self.rooms {
                let head = try await writer.open(room: room)
                follower.follow(room: room, epoch: head.epoch, after: head.rev)
            }
            while !follower.isCaughtUp { _ = try await follower.poll() }
            // The shard that does not hold a marker of a single server's name, so one marker alone would miss it.
            let lost = (0..<3).first { $0 != cluster.shard(of: writer.markerKey) } ?? 0
            let node = try await RedisConnection.connect(to: cluster.endpoint(lost), on: group.next())
            _ = try await node.send(["FLUSHALL"])
            node.close()
            let expected = Set(Self.rooms.filter { Self.shard(of: $0, in: cluster) == lost })
            var reset: Set<String> = []
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(30))
            while reset.count < expected.count, clock.now < deadline {
                for event in try await follower.poll() {
                    guard case .reset(let room, let epoch, let reason) = event else { Issue.record("unexpected \(event)"); continue }
                    #expect(epoch == nil && reason == .epochChanged)
                    reset.insert(room)
                }
            }
            #expect(reset == expected)
            #expect(Set(follower.positions.keys) == Set(Self.rooms).subtracting(expected))
            follower.close()
            await client.close()
        }
    }

    @Test("a room whose slot moves to another shard is followed there: Redis ends its subscription, the follower routes it again and misses nothing; untrusted persistence takes the new server for a restart (new epoch)",
          arguments: [true, false])
    func followsAMovedSlot(trustsPersistence: Bool) async throws {
        try await RedisClusterProcess.with { cluster, group in
            let room = Self.rooms[0]
            var settings = RedisRoomSequencer.Settings()
            settings.trustsPersistence = trustsPersistence
            let writer = RedisRoomSequencer(client: cluster.client(group: group), settings: settings)
            var follower = RoomLogFollower(sequencer: RedisRoomSequencer(client: cluster.client(group: group)), blockTimeout: .milliseconds(5),
                                           epochCheckInterval: .seconds(3_600))
            let head = try await writer.open(room: room)
            follower.follow(room: room, epoch: head.epoch, after: head.rev)
            for seq in Int64(1)...5 { _ = try await writer.append(room: room, client: "c", user: "u", seq: seq, ops: Self.op) }
            var (revs, resets) = try await Self.collect(&follower, rooms: [room], count: 5)
            let from = Self.shard(of: room, in: cluster), to = (Self.shard(of: room, in: cluster) + 1) % 3
            try await cluster.migrate(RedisHashSlot.of(room), from: from, to: to, group: group)
            for seq in Int64(6)...10 { _ = try await writer.append(room: room, client: "c", user: "u", seq: seq, ops: Self.op) }
            let after = try await Self.collect(&follower, rooms: [room], count: 5)
            revs[room, default: []] += after.revs[room] ?? []
            resets += after.resets
            guard trustsPersistence else {
                // The room's run id names the old shard's server: its next write starts a new epoch.
                #expect(revs[room] == Array(1...5))
                guard case .reset(room, let epoch?, .epochChanged)? = resets.first else { Issue.record("expected a reset: \(resets)"); return }
                #expect(epoch != head.epoch)
                return
            }
            #expect(revs[room] == Array(1...10))
            #expect(resets.isEmpty)
            let target = try await RedisConnection.connect(to: cluster.endpoint(to), on: group.next())
            let reply = try await target.send(["PUBSUB", "SHARDNUMSUB", RedisArgument("tandem:{\(room)}:changes")])
            target.close()
            #expect(reply.array?.last?.integer == 1, "subscribed on the new shard: \(reply)")
            follower.close()
        }
    }
}
