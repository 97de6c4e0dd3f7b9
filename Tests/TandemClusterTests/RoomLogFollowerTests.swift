import Synchronization
import Testing
@testable import TandemCluster
import TandemRedis
import TandemTestSupport
import TandemWire

@Suite("Following room logs", .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct RoomLogFollowerTests {
    static let op = RedisRoomSequencerTests.op

    @Test("a follower sees every patch of concurrent writers once, contiguous, for several rooms")
    func followsConcurrentWriters() async throws {
        try await RedisTestContext.with { context in
            let writers = (0..<2).map { _ in RedisRoomSequencer(client: context.client()) }
            var follower = RoomLogFollower(sequencer: RedisRoomSequencer(client: context.client()), blockTimeout: .milliseconds(50))
            for room in ["a", "b"] {
                let head = try await writers[0].open(room: room)
                follower.follow(room: room, epoch: head.epoch, after: head.rev)
            }
            let writing = Task {
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    for (index, writer) in writers.enumerated() {
                        tasks.addTask {
                            for seq in Int64(1)...40 {
                                for room in ["a", "b"] {
                                    _ = try await writer.append(room: room, client: "w\(index)", user: "u", seq: seq, ops: Self.op)
                                }
                            }
                        }
                    }
                    try await tasks.waitForAll()
                }
            }
            var seen: [String: [SequencedPatch]] = [:]
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(60))
            while (seen["a"]?.count ?? 0) < 80 || (seen["b"]?.count ?? 0) < 80, clock.now < deadline {
                for event in try await follower.poll() {
                    guard case .patches(let room, let patches) = event else { Issue.record("unexpected \(event)"); return }
                    seen[room, default: []] += patches
                }
            }
            try await writing.value
            for room in ["a", "b"] {
                #expect(seen[room]?.map(\.rev) == Array(1...80))
                #expect(seen[room]?.filter { $0.client == "w0" }.map(\.seq) == Array(1...40))
            }
            #expect(follower.positions["a"]?.rev == 80)
        }
    }

    @Test("once subscribed, a poll waits for the room's change message and returns its patches without reading the log")
    func pollWakesOnAppend() async throws {
        try await RedisTestContext.with { context in
            let writer = RedisRoomSequencer(client: context.client(), now: { 1_750_000_000_000 })
            let head = try await writer.open(room: "r")
            let reader = context.client()
            var follower = RoomLogFollower(sequencer: RedisRoomSequencer(client: reader), blockTimeout: .seconds(30), epochCheckInterval: .seconds(3_600))
            follower.follow(room: "r", epoch: head.epoch, after: 0)
            try await Self.waitUntilSubscribed(&follower)
            _ = try await reader.send(["CONFIG", "RESETSTAT"])
            let polling = Task { [follower] in
                var follower = follower
                return try await follower.poll()
            }
            _ = try await writer.append(room: "r", client: "c", user: "u", seq: 1, ops: Self.op)
            let events = try await polling.value
            #expect(events == [.patches(room: "r", [SequencedPatch(epoch: head.epoch, rev: 1, user: "u", client: "c", seq: 1, ops: Self.op,
                                                                        time: 1_750_000_000_000)])])
            let stats = try await reader.send(["INFO", "commandstats"]).string ?? ""
            #expect(!stats.contains("cmdstat_xrange") && !stats.contains("cmdstat_xread"), "the message carried the patch: \(stats)")
        }
    }

    @Test("following costs Redis nothing per idle room: 1,000 rooms and 10 rooms make the same commands per poll")
    func idleRoomsCostNothing() async throws {
        try await RedisTestContext.with { context in
            var calls: [Int: Int] = [:]
            for count in [10, 1_000] {
                let settings = RedisRoomSequencer.Settings(keyPrefix: "p\(count)")
                let writer = RedisRoomSequencer(client: context.client(), settings: settings)
                let reader = context.client()
                var follower = RoomLogFollower(sequencer: RedisRoomSequencer(client: reader, settings: settings), blockTimeout: .milliseconds(1))
                for index in 0..<count {
                    let room = "idle\(count)-\(index)"
                    let head = try await writer.open(room: room)
                    follower.follow(room: room, epoch: head.epoch, after: head.rev)
                }
                try await Self.waitUntilSubscribed(&follower)
                // Every room was read once after its subscription was confirmed; from then on, nothing per room.
                _ = try await reader.send(["CONFIG", "RESETSTAT"])
                for _ in 0..<20 { #expect(try await follower.poll() == []) }
                let stats = try await reader.send(["INFO", "commandstats"]).string ?? ""
                calls[count] = stats.split(separator: "\r\n").filter { $0.hasPrefix("cmdstat_") && !$0.hasPrefix("cmdstat_info") && !$0.hasPrefix("cmdstat_config") }
                    .compactMap { line in line.split(separator: "calls=").dropFirst().first?.split(separator: ",").first.flatMap { Int($0) } }.reduce(0, +)
                follower.close()
            }
            // The data-loss marker, once per poll here (interval zero), is all.
            #expect(calls[10] == 20 && calls[1_000] == 20, "\(calls)")
        }
    }

    @Test("when the subscriber connection is killed while writers go on, the follower reconnects and reads the missed patches from the log")
    func survivesALostSubscription() async throws {
        try await RedisTestContext.with { context in
            var (writer, _, follower) = try await Self.subscribedFollower(context)
            var revs: [Int64] = []
            let admin = try await context.connect()
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(30))
            // Killed, then 20 patches whose messages reach nobody: only the read after the reconnect has them.
            _ = try await admin.send(["CLIENT", "KILL", "TYPE", "pubsub"])
            for seq in Int64(1)...20 { _ = try await writer.append(room: "r", client: "c", user: "u", seq: seq, ops: Self.op) }
            while revs.count < 20, clock.now < deadline {
                if let events = try? await follower.poll() { revs += Self.revs(events) }
            }
            #expect(revs == Array(1...20))
            // Killed again and again while writers go on and the follower polls.
            for seq in Int64(21)...60 {
                _ = try await writer.append(room: "r", client: "c", user: "u", seq: seq, ops: Self.op)
                if seq % 20 == 10 { _ = try await admin.send(["CLIENT", "KILL", "TYPE", "pubsub"]) }
                if seq % 7 == 0, let events = try? await follower.poll() { revs += Self.revs(events) }
            }
            while revs.count < 60, clock.now < deadline {
                if let events = try? await follower.poll() { revs += Self.revs(events) }
            }
            #expect(revs == Array(1...60))
        }
    }

    @Test("a follower reads a log from inside an entry, keyed by first revs or as an earlier release wrote it (by last revs)", arguments: [false, true])
    func readsFromInsideAnEntry(earlierRelease: Bool) async throws {
        try await RedisTestContext.with { context in
            let writer = RedisRoomSequencer(client: context.client())
            let head = try await writer.open(room: "r")
            for batch in 0..<5 {
                _ = try await writer.append(room: "r", (1...10).map { SequencerEntry(client: "c", user: "u", seq: Int64(batch * 10 + $0), ops: Self.op) },
                                            baseRev: nil)
            }
            if earlierRelease { try await RedisRoomSequencerTests.asEarlierRelease(writer.keys(room: "r").log, client: context.client()) }
            var follower = RoomLogFollower(sequencer: RedisRoomSequencer(client: context.client()), blockTimeout: .milliseconds(50))
            follower.follow(room: "r", epoch: head.epoch, after: 14)
            var seen: [SequencedPatch] = []
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(60))
            while seen.count < 36, clock.now < deadline { seen += Self.patches(try await follower.poll()) }
            #expect(seen.map(\.rev) == Array(15...50))
        }
    }

    @Test("a message that skips revs (one was missed) makes the follower read the gap from the log")
    func aGapIsReadFromTheLog() async throws {
        try await RedisTestContext.with { context in
            var (writer, head, follower) = try await Self.subscribedFollower(context)
            // Revs 1 and 2 are logged but their message never comes; rev 3's does.
            let keys = writer.keys(room: "r")
            let admin = try await context.connect()
            for rev in 1...2 {
                _ = try await admin.send(["XADD", RedisArgument(keys.log), RedisArgument("\(rev)-0"), "epoch", RedisArgument(head.epoch), "user", "u", "client", "c",
                                          "seq", RedisArgument(Int64(rev)), "ops", RedisArgument(bytes: Self.op), "time", "0"])
            }
            _ = try await admin.send(["HSET", RedisArgument(keys.meta), "rev", "2"])
            _ = try await admin.send(["HSET", RedisArgument(keys.meta), "c:c", "2:2"])
            _ = try await writer.append(room: "r", client: "c", user: "u", seq: 3, ops: Self.op)
            var revs: [Int64] = []
            for _ in 0..<200 where revs.count < 3 { revs += Self.revs(try await follower.poll()) }
            #expect(revs == [1, 2, 3])
        }
    }

    @Test("a message that starts at or before the follower's rev is not folded, even where it reaches past it: the log says what follows")
    func aMessageFromBeforeTheRevIsNotFolded() async throws {
        try await RedisTestContext.with { context in
            var (writer, head, follower) = try await Self.subscribedFollower(context)
            _ = try await writer.append(room: "r", client: "c", user: "u", seq: 1, ops: Self.op)
            var seen: [SequencedPatch] = []
            for _ in 0..<200 where seen.isEmpty { seen += Self.patches(try await follower.poll()) }
            #expect(seen.map(\.rev) == [1])
            // A batch of revs 1–3 that Redis never logged (a write that lost), then the logged rev 2.
            var message: [UInt8] = []
            RoomChangeMessage.appendBatchHeader(epoch: head.epoch, first: 1, time: 0, to: &message)
            for seq in Int64(1)...3 { RoomChangeMessage.appendRecord(user: "loser", client: "l", seq: seq, ops: Self.op, to: &message) }
            _ = try await context.client().send(["SPUBLISH", RedisArgument(writer.changesChannel(room: "r")), RedisArgument(bytes: message)])
            _ = try await writer.append(room: "r", client: "c", user: "u", seq: 2, ops: Self.op)
            for _ in 0..<200 where seen.count < 2 { seen += Self.patches(try await follower.poll()) }
            for _ in 0..<5 { seen += Self.patches(try await follower.poll()) }
            #expect(seen.map(\.rev) == [1, 2])
            #expect(seen.map(\.user) == ["u", "u"])
        }
    }

    static func patches(_ events: [RoomLogEvent]) -> [SequencedPatch] {
        events.flatMap { event -> [SequencedPatch] in
            guard case .patches(_, let patches) = event else { Issue.record("unexpected \(event)"); return [] }
            return patches
        }
    }

    static func revs(_ events: [RoomLogEvent]) -> [Int64] {
        patches(events).map(\.rev)
    }

    /// A writer that opened room "r", and a follower of it from rev 0 (polls of 5 ms), subscribed.
    static func subscribedFollower(_ context: RedisTestContext) async throws -> (RedisRoomSequencer, RoomHead, RoomLogFollower) {
        let writer = RedisRoomSequencer(client: context.client())
        let head = try await writer.open(room: "r")
        var follower = RoomLogFollower(sequencer: RedisRoomSequencer(client: context.client()), blockTimeout: .milliseconds(5))
        follower.follow(room: "r", epoch: head.epoch, after: 0)
        try await waitUntilSubscribed(&follower)
        return (writer, head, follower)
    }

    /// Polls until every followed room is subscribed and read once (bounded: 30 s), expecting no news meanwhile.
    static func waitUntilSubscribed(_ follower: inout RoomLogFollower) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(30))
        while !follower.isCaughtUp, clock.now < deadline {
            #expect(try await follower.poll() == [])
        }
        #expect(follower.isCaughtUp, "the follower did not subscribe within 30 s")
    }

    /// Polls until some event comes (bounded: 30 s).
    static func pollUntilNews(_ follower: inout RoomLogFollower) async throws -> [RoomLogEvent] {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(30))
        while clock.now < deadline {
            let events = try await follower.poll()
            if !events.isEmpty { return events }
        }
        return []
    }

    @Test("when Redis loses the room, the follower resets it as an epoch change and stops following it")
    func resetsOnEpochChange() async throws {
        try await RedisTestContext.with { context in
            let client = context.client()
            let writer = RedisRoomSequencer(client: client)
            let head = try await writer.open(room: "r")
            var follower = RoomLogFollower(sequencer: RedisRoomSequencer(client: context.client()), blockTimeout: .milliseconds(1))
            follower.follow(room: "r", epoch: head.epoch, after: 0)
            _ = try await client.send(["FLUSHALL"])
            #expect(try await Self.pollUntilNews(&follower) == [.reset(room: "r", epoch: nil, reason: .epochChanged)])
            #expect(follower.positions.isEmpty)
            #expect(try await follower.poll() == [])
        }
    }

    @Test("a follower further behind than the log holds is reset as outside the window")
    func resetsOutsideWindow() async throws {
        try await RedisTestContext.with { context in
            let settings = RedisRoomSequencer.Settings(logLength: 5)
            let writer = RedisRoomSequencer(client: context.client(), settings: settings)
            let head = try await writer.open(room: "r")
            for seq in Int64(1)...8 { _ = try await writer.append(room: "r", client: "c", user: "u", seq: seq, ops: Self.op) }
            var follower = RoomLogFollower(sequencer: RedisRoomSequencer(client: context.client(), settings: settings), blockTimeout: .milliseconds(1))
            follower.follow(room: "r", epoch: head.epoch, after: 1)
            #expect(try await Self.pollUntilNews(&follower) == [.reset(room: "r", epoch: head.epoch, reason: .outsideWindow)])
            follower.follow(room: "r", epoch: head.epoch, after: 5)
            guard case .patches(_, let patches) = try await Self.pollUntilNews(&follower).first else { Issue.record("expected patches"); return }
            #expect(patches.map(\.rev) == [6, 7, 8])
        }
    }

    @Test("signals published after a room is followed arrive once, in order, next to its patches; older ones never")
    func signalsFromFollowOnward() async throws {
        try await RedisTestContext.with { context in
            let writer = RedisRoomSequencer(client: context.client())
            let head = try await writer.open(room: "r")
            try await writer.publish(room: "r", RoomSignal(node: "n1", payload: Array("before".utf8)))
            var follower = RoomLogFollower(sequencer: RedisRoomSequencer(client: context.client()), blockTimeout: .milliseconds(1))
            follower.follow(room: "r", epoch: head.epoch, after: 0)
            // Signals published before the subscription is confirmed never arrive.
            try await Self.waitUntilSubscribed(&follower)
            for index in 1...3 { try await writer.publish(room: "r", RoomSignal(node: "n\(index)", payload: Array("s\(index)".utf8))) }
            _ = try await writer.append(room: "r", client: "c", user: "u", seq: 1, ops: Self.op)
            var signals: [RoomSignal] = [], revs: [Int64] = []
            for _ in 0..<1_000 where signals.count < 3 || revs.isEmpty {
                for event in try await follower.poll() {
                    switch event {
                    case .signals(_, let batch): signals += batch
                    case .patches(_, let patches): revs += patches.map(\.rev)
                    case .reset: Issue.record("unexpected \(event)")
                    }
                }
            }
            #expect(signals.map(\.node) == ["n1", "n2", "n3"])
            #expect(signals.map { String(decoding: $0.payload, as: UTF8.self) } == ["s1", "s2", "s3"])
            #expect(revs == [1])
            #expect(try await follower.poll() == [], "each signal is delivered once")
        }
    }

    @Test("data loss without a restart is noticed by one marker read per interval, not per room; a newly followed room is read at once")
    func dataLossIsNoticedByTheMarker() async throws {
        try await RedisTestContext.with { context in
            let writer = RedisRoomSequencer(client: context.client())
            let head = try await writer.open(room: "r")
            let clock = Mutex(ContinuousClock.now)
            var follower = RoomLogFollower(sequencer: RedisRoomSequencer(client: context.client()), blockTimeout: .milliseconds(1),
                                           epochCheckInterval: .seconds(10), now: { clock.withLock { $0 } })
            follower.follow(room: "r", epoch: head.epoch, after: 0)
            try await Self.waitUntilSubscribed(&follower)
            _ = try await context.client().send(["FLUSHALL"])
            // Not due yet: the loss goes unnoticed (no message of another epoch comes either).
            for _ in 0..<5 { #expect(try await follower.poll() == []) }
            // A room followed now is read once subscribed, whatever the interval.
            let other = try await writer.open(room: "s")
            follower.follow(room: "s", epoch: other.epoch, after: 0)
            _ = try await context.client().send(["DEL", RedisArgument(writer.keys(room: "s").meta)])
            #expect(try await Self.pollUntilNews(&follower) == [.reset(room: "s", epoch: nil, reason: .epochChanged)])
            clock.withLock { $0 = $0.advanced(by: .seconds(10)) }
            #expect(try await Self.pollUntilNews(&follower) == [.reset(room: "r", epoch: nil, reason: .epochChanged)])
        }
    }
}
