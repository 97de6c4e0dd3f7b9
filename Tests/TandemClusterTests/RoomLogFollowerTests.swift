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

    @Test("a poll blocks until a patch arrives, then returns it")
    func pollWakesOnAppend() async throws {
        try await RedisTestContext.with { context in
            let writer = RedisRoomSequencer(client: context.client(), now: { 1_750_000_000_000 })
            let head = try await writer.open(room: "r")
            var follower = RoomLogFollower(sequencer: RedisRoomSequencer(client: context.client()), blockTimeout: .seconds(30))
            follower.follow(room: "r", epoch: head.epoch, after: 0)
            let polling = Task { [follower] in
                var follower = follower
                return try await follower.poll()
            }
            try await context.waitForBlockedClient(using: try await context.connect())
            _ = try await writer.append(room: "r", client: "c", user: "u", seq: 1, ops: Self.op)
            let events = try await polling.value
            #expect(events == [.patches(room: "r", [SequencedPatch(epoch: head.epoch, rev: 1, user: "u", client: "c", seq: 1, ops: Self.op,
                                                                        time: 1_750_000_000_000)])])
        }
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
            #expect(try await follower.poll() == [.reset(room: "r", epoch: nil, reason: .epochChanged)])
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
            #expect(try await follower.poll() == [.reset(room: "r", epoch: head.epoch, reason: .outsideWindow)])
            follower.follow(room: "r", epoch: head.epoch, after: 5)
            guard case .patches(_, let patches) = try await follower.poll().first else { Issue.record("expected patches"); return }
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
            // The first poll places the signal stream's cursor at its end.
            #expect(try await follower.poll() == [])
            for index in 1...3 { try await writer.publish(room: "r", RoomSignal(node: "n\(index)", payload: Array("s\(index)".utf8))) }
            _ = try await writer.append(room: "r", client: "c", user: "u", seq: 1, ops: Self.op)
            var signals: [RoomSignal] = [], revs: [Int64] = []
            for _ in 0..<10 where signals.count < 3 || revs.isEmpty {
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

    @Test("epochs are read at most once per interval, and for a newly followed room at its first poll")
    func epochChecksAreThrottled() async throws {
        try await RedisTestContext.with { context in
            let writer = RedisRoomSequencer(client: context.client())
            let head = try await writer.open(room: "r")
            let clock = Mutex(ContinuousClock.now)
            var follower = RoomLogFollower(sequencer: RedisRoomSequencer(client: context.client()), blockTimeout: .milliseconds(1),
                                           epochCheckInterval: .seconds(10), now: { clock.withLock { $0 } })
            follower.follow(room: "r", epoch: head.epoch, after: 0)
            #expect(try await follower.poll() == [])
            _ = try await context.client().send(["FLUSHALL"])
            // Not due yet: the loss goes unnoticed (no entry of another epoch arrives either).
            #expect(try await follower.poll() == [])
            // A room followed now is checked at once, whatever the interval.
            let other = try await writer.open(room: "s")
            follower.follow(room: "s", epoch: other.epoch, after: 0)
            _ = try await context.client().send(["DEL", RedisArgument(writer.keys(room: "s")[0])])
            #expect(try await follower.poll() == [.reset(room: "s", epoch: nil, reason: .epochChanged)])
            clock.withLock { $0 = $0.advanced(by: .seconds(10)) }
            #expect(try await follower.poll() == [.reset(room: "r", epoch: nil, reason: .epochChanged)])
        }
    }
}
