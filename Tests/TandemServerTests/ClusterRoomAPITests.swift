import Foundation
import Synchronization
import Testing
import TandemProtocol
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// The rooms API in cluster mode: every node answers for every room from Redis, writes from several
/// nodes get one order and distinct seqs, `ifRev` is decided by Redis, and a delete reaches the
/// connections of every node.
@Suite(.serialized) struct ClusterRoomAPITests {
    /// One request to `node`; the reply's status and JSON body.
    static func call(_ node: SyncServer, _ method: String, _ path: String, token: String, json: String? = nil,
                     on loop: EventLoop) async throws -> (status: Int, json: JSONValue?) {
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: "Bearer \(token)")
        if json != nil { headers.add(name: "Content-Type", value: "application/json") }
        let reply = try await HTTPClient.send(method: method, url: "http://127.0.0.1:\(node.port)\(path)", headers: headers,
                                              body: Array((json ?? "").utf8), timeout: .seconds(30), on: loop)
        return (reply.status, try? JSONValue.parse(reply.body))
    }

    static func set(_ key: String, _ value: Int) -> String { #"{"ops":[{"op":"set","path":"/\#(key)","value":\#(value)}]}"# }

    static let backend = ClusterServerTests.token(user: "backend", room: TokenClaims.anyRoom)

    @Test("a node that does not serve the room reads it, its history and past states from Redis; writes from two nodes keep one order")
    func everyNodeReadsAndWritesEveryRoom() async throws {
        let redis = try await RedisServerProcess.start()
        let fast: (inout ServerConfiguration) -> Void = { $0.clusterPresenceInterval = .milliseconds(50) }
        let serving = try ClusterServerTests.startNode(redisPort: redis.port, fast)
        let other = try ClusterServerTests.startNode(redisPort: redis.port, fast)
        let group = try EventLoopGroup(threads: 2)
        let loop = group.next()
        let (alice, _) = try await ClusterServerTests.join(serving.syncURL, user: "alice", client: "a1", loop: loop)
        for value in 1...3 { try await alice.send(.patch(seq: Int64(value), ops: ClusterServerTests.set("x", value))) }
        #expect(await ClusterServerTests.revs(alice, count: 3) == [1, 2, 3])

        // Read on the node that never loaded the room: nothing is opened there.
        var room = try await Self.call(other, "GET", "/v1/rooms/lobby", token: Self.backend, on: loop)
        #expect(room.status == 200 && room.json?["rev"] == 3 && room.json?["state"] == ["x": 3], "\(room)")
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while room.json?["participants"]?.arrayValue?.isEmpty != false, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            room = try await Self.call(other, "GET", "/v1/rooms/lobby", token: Self.backend, on: loop)
        }
        #expect(room.json?["participants"]?.arrayValue?.map { $0["client"] } == ["a1"], "presence from the serving node")
        let epoch = try #require(room.json?["epoch"]?.stringValue)
        #expect(other.registry.loadedRoom("lobby") == nil)

        let history = try await Self.call(other, "GET", "/v1/rooms/lobby/history", token: Self.backend, on: loop)
        let patches = history.json?["patches"]?.arrayValue ?? []
        #expect(history.status == 200 && history.json?["epoch"] == .string(epoch) && history.json?["next"] == .null)
        #expect(patches.map { $0["rev"] } == [1, 2, 3] && patches.map { $0["seq"] } == [1, 2, 3])
        #expect(patches.allSatisfy { $0["user"] == "alice" && $0["client"] == "a1" && ($0["time"]?.doubleValue ?? 0) > 1_700_000_000_000 })
        let page = try await Self.call(other, "GET", "/v1/rooms/lobby/history?after=1&limit=1", token: Self.backend, on: loop)
        #expect(page.json?["patches"]?.arrayValue?.map { $0["rev"] } == [2] && page.json?["next"] == 2)
        let past = try await Self.call(other, "GET", "/v1/rooms/lobby/state?rev=1", token: Self.backend, on: loop)
        #expect(past.status == 200 && past.json == ["epoch": .string(epoch), "rev": 1, "state": ["x": 1]], "\(past)")
        #expect(try await Self.call(other, "GET", "/v1/rooms/lobby/state?rev=9", token: Self.backend, on: loop).status == 404)
        #expect(try await Self.call(other, "GET", "/v1/rooms/nowhere", token: Self.backend, on: loop).status == 404)

        // Writes through both nodes at once: distinct revs, distinct seqs of `http`, seen by alice in order.
        let results = try await withThrowingTaskGroup(of: (Int, JSONValue?).self) { tasks in
            for index in 0..<10 {
                tasks.addTask {
                    try await Self.call(index % 2 == 0 ? serving : other, "POST", "/v1/rooms/lobby/patch", token: Self.backend,
                                        json: Self.set("w\(index)", index), on: loop)
                }
            }
            return try await tasks.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.0 == 200 }, "\(results)")
        #expect(Set(results.compactMap { $0.1?["rev"]?.doubleValue }) == Set((4...13).map(Double.init)))
        var seen: [PatchEvent] = []
        while seen.count < 10, let message = await alice.next(timeout: .seconds(30)) {
            if case .patch(let event) = message { seen.append(event) }
        }
        #expect(seen.map(\.rev) == Array(4...13) && seen.allSatisfy { $0.client == Room.httpClient && $0.user == "backend" })
        #expect(Set(seen.map(\.seq)).count == 10, "Redis gave every write of `http` its own seq: \(seen.map(\.seq))")

        // Compare-and-set is decided by Redis, whichever node is behind.
        let conditional = try await Self.call(other, "POST", "/v1/rooms/lobby/patch", token: Self.backend,
                                              json: #"{"ops":[{"op":"set","path":"/c","value":1}],"ifRev":13}"#, on: loop)
        #expect(conditional.status == 200 && conditional.json == ["rev": 14], "\(conditional)")
        let stale = try await Self.call(serving, "POST", "/v1/rooms/lobby/patch", token: Self.backend,
                                        json: #"{"ops":[{"op":"set","path":"/c","value":2}],"ifRev":13}"#, on: loop)
        #expect(stale.status == 409 && stale.json?["rev"] == 14, "\(stale)")
        let ahead = try await Self.call(serving, "POST", "/v1/rooms/lobby/patch", token: Self.backend,
                                        json: #"{"ops":[{"op":"set","path":"/c","value":2}],"ifRev":99}"#, on: loop)
        #expect(ahead.status == 409 && ahead.json?["rev"] == 14, "\(ahead)")
        let refused = try await Self.call(other, "POST", "/v1/rooms/lobby/patch", token: Self.backend,
                                          json: #"{"ops":[{"op":"test","path":"/c","value":99}]}"#, on: loop)
        #expect(refused.status == 422 && refused.json?["error"] == "test_failed", "\(refused)")
        // A participant's seq 0 is refused, not given a seq by Redis.
        try await alice.send(.patch(seq: 0, ops: ClusterServerTests.set("z", 0)))
        var answer: ServerMessage?
        while let message = await alice.next(timeout: .seconds(30)) {
            if case .reject = message { answer = message; break }
        }
        guard case .reject(0, .invalidOp, _)? = answer else { Issue.record("seq 0 not refused: \(String(describing: answer))"); return }

        await alice.socket.close()
        for node in [serving, other] { await node.shutdown() }
        await ClusterServerTests.shutDown(group)
        await redis.stop()
    }

    @Test("a delete on one node closes the room's connections on another with 4004; the room comes back as a new one")
    func aDeleteReachesEveryNode() async throws {
        let redis = try await RedisServerProcess.start()
        let serving = try ClusterServerTests.startNode(redisPort: redis.port)
        let other = try ClusterServerTests.startNode(redisPort: redis.port)
        let group = try EventLoopGroup(threads: 2)
        let loop = group.next()
        let (alice, before) = try await ClusterServerTests.join(serving.syncURL, user: "alice", client: "a1", loop: loop)
        try await alice.send(.patch(seq: 1, ops: ClusterServerTests.set("x", 1)))
        #expect(await ClusterServerTests.revs(alice, count: 1) == [1])

        let guest = ClusterServerTests.token(user: "bob", role: .guest)
        #expect(try await Self.call(other, "DELETE", "/v1/rooms/lobby", token: guest, on: loop).status == 403)
        let deleted = try await Self.call(other, "DELETE", "/v1/rooms/lobby", token: Self.backend, on: loop)
        #expect(deleted.status == 200 && deleted.json == ["room": "lobby", "deleted": true], "\(deleted)")
        var error: ServerMessage?
        while let message = await alice.next(timeout: .seconds(30)) {
            if case .error = message { error = message; break }
        }
        guard case .error(.roomDeleted, _)? = error else {
            Issue.record("no room_deleted error on the serving node: \(String(describing: error))")
            return
        }
        #expect(await alice.closeCode(timeout: .seconds(30)) == 4004)
        for node in [serving, other] {
            #expect(try await Self.call(node, "GET", "/v1/rooms/lobby", token: Self.backend, on: loop).status == 404)
            #expect(try await Self.call(node, "GET", "/v1/rooms/lobby/history", token: Self.backend, on: loop).status == 404)
        }
        #expect(try await Self.call(other, "DELETE", "/v1/rooms/lobby", token: Self.backend, on: loop).status == 404)

        let (carol, after) = try await ClusterServerTests.join(serving.syncURL, user: "carol", client: "c1", loop: loop)
        #expect(after.epoch != before.epoch && after.rev == 0)
        if case .state(let state) = after.sync { #expect(state == [:]) } else { Issue.record("a new room sends its state") }
        await carol.socket.close()
        for node in [serving, other] { await node.shutdown() }
        await ClusterServerTests.shutDown(group)
        await redis.stop()
    }

    @Test("history and past states reach back as far as the log and the kept snapshots do, then answer 410")
    func retentionFollowsTheSharedLog() async throws {
        let redis = try await RedisServerProcess.start()
        let node = try ClusterServerTests.startNode(redisPort: redis.port) {
            $0.historyWindow = 6
            $0.retainedRevisions = 6
            $0.snapshotInterval = 4
        }
        let group = try EventLoopGroup(threads: 1)
        let loop = group.next()
        let (alice, _) = try await ClusterServerTests.join(node.syncURL, user: "alice", client: "a1", loop: loop)
        // One patch at a time: the log keeps 6 entries, and a burst could outrun a loaded node's follower.
        var revs: [Int64] = []
        for value in 1...20 {
            try await alice.send(.patch(seq: Int64(value), ops: ClusterServerTests.set("x", value)))
            revs += await ClusterServerTests.revs(alice, count: 1)
        }
        #expect(revs == Array(1...20))
        // Snapshots are stored after the fold that reaches their rev; the one at 20 may trail the ack.
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        var latest = try await Self.call(node, "GET", "/v1/rooms/lobby/state?rev=20", token: Self.backend, on: loop)
        while latest.status != 200, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            latest = try await Self.call(node, "GET", "/v1/rooms/lobby/state?rev=20", token: Self.backend, on: loop)
        }
        #expect(latest.json?["state"] == ["x": 20])
        for rev in [16, 17, 19] {
            let state = try await Self.call(node, "GET", "/v1/rooms/lobby/state?rev=\(rev)", token: Self.backend, on: loop)
            #expect(state.status == 200 && state.json?["state"] == ["x": .number(Double(rev))], "rev \(rev): \(state)")
        }
        // 15 would start from the snapshot at 12, whose next patches left the log.
        for rev in [11, 15] {
            let gone = try await Self.call(node, "GET", "/v1/rooms/lobby/state?rev=\(rev)", token: Self.backend, on: loop)
            #expect(gone.status == 410 && gone.json?["error"] == "not_retained", "rev \(rev): \(gone)")
        }
        #expect(try await Self.call(node, "GET", "/v1/rooms/lobby/history?after=10", token: Self.backend, on: loop).status == 410)
        let kept = try await Self.call(node, "GET", "/v1/rooms/lobby/history?after=14", token: Self.backend, on: loop)
        #expect(kept.json?["patches"]?.arrayValue?.map { $0["rev"] } == [15, 16, 17, 18, 19, 20])
        await alice.socket.close()
        await node.shutdown()
        await ClusterServerTests.shutDown(group)
        await redis.stop()
    }

    @Test("HTTP writes through one node racing a participant's patches on another keep one order: every rev once, seen alike on both nodes and in the history")
    func httpWritesRacingAParticipantKeepOneOrder() async throws {
        let redis = try await RedisServerProcess.start()
        let writerNode = try ClusterServerTests.startNode(redisPort: redis.port)
        let httpNode = try ClusterServerTests.startNode(redisPort: redis.port)
        let group = try EventLoopGroup(threads: 2)
        let loop = group.next()
        let (alice, _) = try await ClusterServerTests.join(writerNode.syncURL, user: "alice", client: "a1", loop: loop)
        let (bob, _) = try await ClusterServerTests.join(httpNode.syncURL, user: "bob", client: "b1", role: .viewer, loop: loop)
        let count = 30
        async let participant: Void = {
            for seq in 1...count { try await alice.send(.patch(seq: Int64(seq), ops: ClusterServerTests.set("a\(seq)", seq))) }
        }()
        let answers = try await withThrowingTaskGroup(of: (Int, Int64?).self) { tasks in
            for index in 1...count {
                tasks.addTask {
                    let reply = try await Self.call(httpNode, "POST", "/v1/rooms/lobby/patch", token: Self.backend, json: Self.set("h\(index)", index), on: loop)
                    return (reply.status, reply.json?["rev"]?.doubleValue.map { Int64($0) })
                }
            }
            return try await tasks.reduce(into: []) { $0.append($1) }
        }
        try await participant
        #expect(answers.allSatisfy { $0.0 == 200 }, "\(answers)")

        // Alice (the writer, on one node) and Bob (on the other) see the same 60 revs, each once, in order.
        let seenByAlice = await ClusterServerTests.updates(alice, count: 2 * count)
        #expect(seenByAlice.map(\.rev) == Array(1...Int64(2 * count)))
        #expect(seenByAlice.filter(\.ack).count == count)
        var seenByBob: [PatchEvent] = []
        while seenByBob.count < 2 * count, let message = await bob.next(timeout: .seconds(30)) {
            if case .patch(let event) = message { seenByBob.append(event) }
        }
        #expect(seenByBob.map(\.rev) == Array(1...Int64(2 * count)))
        // Every answered rev is an HTTP write at that very rev; each side's writes keep their own order.
        let httpRevs = seenByBob.filter { $0.client == Room.httpClient }.map(\.rev)
        #expect(Set(answers.compactMap(\.1)) == Set(httpRevs) && httpRevs.count == count)
        #expect(seenByBob.filter { $0.client == "a1" }.map(\.seq) == Array(1...Int64(count)))
        #expect(seenByBob.filter { $0.client == Room.httpClient }.map(\.seq) == Array(1...Int64(count)), "Redis gives `http` its seqs in rev order")
        #expect(!seenByAlice.filter(\.ack).map(\.rev).contains { httpRevs.contains($0) }, "no rev is both alice's ack and an HTTP write")

        let history = try await Self.call(writerNode, "GET", "/v1/rooms/lobby/history", token: Self.backend, on: loop)
        let logged = history.json?["patches"]?.arrayValue ?? []
        #expect(logged.map { $0["rev"]?.doubleValue.map { Int64($0) } } == seenByBob.map { $0.rev })
        #expect(logged.map { $0["client"]?.stringValue } == seenByBob.map { $0.client })
        let room = try await Self.call(httpNode, "GET", "/v1/rooms/lobby", token: Self.backend, on: loop)
        #expect(room.json?["rev"] == .number(Double(2 * count)) && room.json?["state"]?.objectValue?.count == 2 * count, "\(room)")

        await alice.socket.close()
        await bob.socket.close()
        for node in [writerNode, httpNode] { await node.shutdown() }
        await ClusterServerTests.shutDown(group)
        await redis.stop()
    }

    @Test("--retain-days: history older than that leaves Redis at the next snapshot, never within --history, back to a snapshot")
    func retentionInDaysTrimsTheSharedLog() async throws {
        let redis = try await RedisServerProcess.start()
        let now = Int64(Date().timeIntervalSince1970 * 1_000)
        let clock = Atomic<Int64>(now - 3 * 86_400_000)
        let node = try ClusterServerTests.startNode(redisPort: redis.port, wallClock: { clock.load(ordering: .relaxed) }) {
            $0.historyWindow = 2
            $0.snapshotInterval = 4
            $0.retainedAge = .seconds(86_400)
        }
        let group = try EventLoopGroup(threads: 1)
        let loop = group.next()
        let (alice, _) = try await ClusterServerTests.join(node.syncURL, user: "alice", client: "a1", loop: loop)
        for value in 1...8 { try await alice.send(.patch(seq: Int64(value), ops: ClusterServerTests.set("x", value))) }
        #expect(await ClusterServerTests.revs(alice, count: 8) == Array(1...8))
        clock.store(now, ordering: .relaxed)
        for value in 9...12 { try await alice.send(.patch(seq: Int64(value), ops: ClusterServerTests.set("x", value))) }
        #expect(await ClusterServerTests.revs(alice, count: 4) == Array(9...12))
        // The snapshot at 12 is stored after the fold that reaches it; revs 1–8 are three days old and go,
        // back to the snapshot at 8 (9–10 are new, 11–12 the resume window).
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        var oldest = try await Self.call(node, "GET", "/v1/rooms/lobby/history?after=0", token: Self.backend, on: loop)
        while oldest.status != 410, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            oldest = try await Self.call(node, "GET", "/v1/rooms/lobby/history?after=0", token: Self.backend, on: loop)
        }
        #expect(oldest.status == 410 && oldest.json?["error"] == "not_retained", "\(oldest)")
        let kept = try await Self.call(node, "GET", "/v1/rooms/lobby/history?after=8", token: Self.backend, on: loop)
        #expect(kept.json?["patches"]?.arrayValue?.map { $0["rev"] } == [9, 10, 11, 12], "\(kept)")
        let past = try await Self.call(node, "GET", "/v1/rooms/lobby/state?rev=8", token: Self.backend, on: loop)
        #expect(past.status == 200 && past.json?["state"] == ["x": 8], "\(past)")
        #expect(try await Self.call(node, "GET", "/v1/rooms/lobby/state?rev=7", token: Self.backend, on: loop).status == 410)
        await alice.socket.close()
        await node.shutdown()
        await ClusterServerTests.shutDown(group)
        await redis.stop()
    }
}
