import Foundation
import Testing
import TandemProtocol
import TandemRedis
import TandemTestSupport
import TandemWire
@testable import TandemCluster
@testable import TandemServer

/// Several `SyncServer` nodes sharing rooms through one real `redis-server` (started per test on a free
/// loopback port), driven by protocol clients over real sockets.
@Suite("Cluster: nodes sharing rooms through Redis", .serialized, .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct ClusterServerTests {
    static let secret = "cluster-test"

    static func startNode(redisPort: Int, _ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws -> SyncServer {
        try startNode(redisPort: redisPort, wallClock: { Int64(Date().timeIntervalSince1970 * 1_000) }, adjust)
    }

    /// A node whose wall clock (patch times, presence, tokens) is `wallClock`.
    static func startNode(redisPort: Int, wallClock: @escaping @Sendable () -> Int64, _ adjust: (inout ServerConfiguration) -> Void) throws -> SyncServer {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = SyncServerTests.temporaryDirectory()
        configuration.inMemoryStorage = true
        configuration.rateLimit = 0
        configuration.helloTimeout = .seconds(60)
        configuration.handshakeTimeout = .seconds(60)
        configuration.redisURL = "redis://127.0.0.1:\(redisPort)"
        adjust(&configuration)
        return try SyncServer(configuration: configuration, sequencing: .cluster, environment: ["TANDEM_SECRET": secret], logger: .discarding,
                              wallClock: wallClock)
    }

    static func token(user: String, room: String = "lobby", role: Role = .host) -> String {
        TokenVerifier(secret: Array(secret.utf8), hmac: { Digest.hmacSHA256(key: $0, message: $1) }, now: { Int64(Date().timeIntervalSince1970) })
            .mint(TokenClaims(sub: user, room: room, role: role, exp: Int64(Date().timeIntervalSince1970) + 600))
    }

    static func set(_ key: String, _ value: Int) -> [PatchOp] {
        [.set(try! JSONPointer(parsing: "/\(key)"), .number(Double(value)))]
    }

    /// Connects, says hello and returns the client with its welcome.
    static func join(_ url: String, user: String, client: String, room: String = "lobby", resume: ResumePoint? = nil, role: Role = .host,
                     loop: EventLoop) async throws -> (ProtocolClient, Welcome) {
        let connection = try await ProtocolClient.connect(url, loop: loop)
        try await connection.send(.hello(Hello(token: token(user: user, room: room, role: role), client: client, resume: resume)))
        guard case .welcome(let welcome)? = await connection.next(timeout: .seconds(30)) else {
            throw ClusterTestError("no welcome from \(url) for \(client)")
        }
        return (connection, welcome)
    }

    /// Reads until `count` acks and patch events arrived (other messages are skipped); their revs in order.
    static func revs(_ client: ProtocolClient, count: Int) async -> [Int64] {
        await updates(client, count: count).map(\.rev)
    }

    /// Reads until `count` acks and patch events arrived (other messages are skipped): each rev, and
    /// whether it came as an ack.
    static func updates(_ client: ProtocolClient, count: Int) async -> [(rev: Int64, ack: Bool)] {
        var updates: [(rev: Int64, ack: Bool)] = []
        while updates.count < count, let message = await client.next(timeout: .seconds(30)) {
            switch message {
            case .ack(_, let rev, let duplicate, _):
                #expect(!duplicate)
                updates.append((rev, true))
            case .patch(let event): updates.append((event.rev, false))
            default: continue
            }
        }
        return updates
    }

    struct ClusterTestError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("three nodes, two writers on each: every connection sees revs 1…N in order, every node holds the same document")
    func threeNodesShareOneOrder() async throws {
        let redis = try await RedisServerProcess.start()
        let nodes = try (0..<3).map { _ in try Self.startNode(redisPort: redis.port) }
        let group = try EventLoopGroup(threads: 2)
        let writersPerNode = 2, patchesEach = 25
        let total = nodes.count * writersPerNode * patchesEach
        var clients: [ProtocolClient] = []
        for (n, node) in nodes.enumerated() {
            for w in 0..<writersPerNode {
                let (client, welcome) = try await Self.join(node.syncURL, user: "u\(n)\(w)", client: "c\(n)\(w)", loop: group.next())
                #expect(welcome.rev == 0)
                clients.append(client)
            }
        }
        await withTaskGroup(of: Void.self) { tasks in
            for (index, client) in clients.enumerated() {
                tasks.addTask {
                    for seq in 1...patchesEach {
                        try? await client.send(.patch(seq: Int64(seq), ops: Self.set("w\(index)", seq)))
                    }
                }
            }
        }
        for (index, client) in clients.enumerated() {
            let updates = await Self.updates(client, count: total)
            #expect(updates.map(\.rev) == Array(1...Int64(total)), "connection \(index) saw a gap or a reordering")
            #expect(updates.filter(\.ack).count == patchesEach, "connection \(index) must get an ack for each of its patches")
        }
        // A late joiner on each node gets the same document at the same rev.
        var documents: [JSONValue] = []
        for (n, node) in nodes.enumerated() {
            let (late, welcome) = try await Self.join(node.syncURL, user: "late", client: "late\(n)", loop: group.next())
            #expect(welcome.rev == Int64(total))
            guard case .state(let state) = welcome.sync else { Issue.record("expected a snapshot"); continue }
            documents.append(state)
            await late.socket.close()
        }
        #expect(documents.count == 3 && Set(documents.map(\.description)).count == 1)
        #expect(documents.first?.objectValue?.count == clients.count)
        for index in clients.indices { #expect(documents.first?["w\(index)"] == .number(Double(patchesEach))) }
        for node in nodes { await node.shutdown() }
        await Self.shutDown(group)
        await redis.stop()
    }

    @Test("the sequencer applies the depth rule: a patch nesting past --max-depth is rejected too_deep on every node, the room stays readable")
    func theDepthRuleHoldsAcrossNodes() async throws {
        let redis = try await RedisServerProcess.start()
        let nodes = try (0..<2).map { _ in try Self.startNode(redisPort: redis.port) { $0.maxDepth = 8 } }
        let group = try EventLoopGroup(threads: 1)
        let (writer, welcome) = try await Self.join(nodes[0].syncURL, user: "g", client: "g1", role: .guest, loop: group.next())
        #expect(welcome.limits.maxDepth == 8)
        let deep = JSONPointer(tokens: Array(repeating: "x", count: 9))
        try await writer.send(.patch(seq: 1, ops: [.set(deep, 1)]))
        let reply = await writer.answer()
        guard case .reject(1, .tooDeep, let text)? = reply else { Issue.record("expected too_deep, got \(String(describing: reply))"); return }
        #expect(text.contains("9 levels deep; at most 8"))
        try await writer.send(.patch(seq: 2, ops: [.set(JSONPointer(tokens: Array(repeating: "x", count: 8)), 1)]))
        #expect(await Self.revs(writer, count: 1) == [1])
        let (_, other) = try await Self.join(nodes[1].syncURL, user: "h", client: "h1", loop: group.next())
        guard case .state(let state) = other.sync else { Issue.record("expected a snapshot"); return }
        #expect(state.depth == 8)
        for node in nodes { await node.shutdown() }
        await Self.shutDown(group)
        await redis.stop()
    }

    @Test("a viewer's patch over the socket is refused forbidden on a cluster node; the room does not move, and a guest's next patch takes rev 1")
    func aViewerCannotWriteOverTheSocketInACluster() async throws {
        let redis = try await RedisServerProcess.start()
        let nodes = try (0..<2).map { _ in try Self.startNode(redisPort: redis.port) }
        let group = try EventLoopGroup(threads: 1)
        let (viewer, _) = try await Self.join(nodes[0].syncURL, user: "v", client: "v1", role: .viewer, loop: group.next())
        try await viewer.send(.patch(seq: 1, ops: Self.set("n", 1)))
        let reply = await viewer.answer()
        guard case .reject(1, .forbidden, _)? = reply else { Issue.record("expected forbidden, got \(String(describing: reply))"); return }
        let (guest, welcome) = try await Self.join(nodes[1].syncURL, user: "g", client: "g1", role: .guest, loop: group.next())
        #expect(welcome.rev == 0 && welcome.sync == .state(.emptyObject), "nothing of the viewer's reached the room")
        try await guest.send(.patch(seq: 1, ops: Self.set("n", 2)))
        #expect(await Self.revs(guest, count: 1) == [1])
        for node in nodes { await node.shutdown() }
        await Self.shutDown(group)
        await redis.stop()
    }

    @Test("a patch on an older base is rebased over what another node's client applied since; the ack carries the ops applied")
    func patchesAreRebasedAcrossNodes() async throws {
        let redis = try await RedisServerProcess.start()
        let nodes = try (0..<2).map { _ in try Self.startNode(redisPort: redis.port) }
        let group = try EventLoopGroup(threads: 1)
        let ops = { (text: String) in try PatchOp.list(from: try JSONValue.parse(text)) }
        let (alice, _) = try await Self.join(nodes[0].syncURL, user: "alice", client: "a1", loop: group.next())
        let (bob, _) = try await Self.join(nodes[1].syncURL, user: "bob", client: "b1", loop: group.next())
        try await alice.send(.patch(seq: 1, ops: try ops(#"[{"op":"set","path":"/cart","value":["a","b","c"]}]"#), base: 0))
        #expect(await Self.revs(alice, count: 1) == [1])
        #expect(await Self.revs(bob, count: 1) == [1])
        // Alice (node 0) takes out "a"; Bob (node 1), on rev 1, takes out "c" as he sees it (index 2).
        try await alice.send(.patch(seq: 2, ops: try ops(#"[{"op":"remove","path":"/cart/0"}]"#), base: 1))
        #expect(await Self.revs(alice, count: 1) == [2])
        #expect(await Self.revs(bob, count: 1) == [2])
        try await bob.send(.patch(seq: 1, ops: try ops(#"[{"op":"test","path":"/cart/2","value":"c"},{"op":"remove","path":"/cart/2"}]"#), base: 1))
        var answer: ServerMessage?
        while let message = await bob.next(timeout: .seconds(30)) {
            if case .ack = message { answer = message; break }
            if case .reject = message { answer = message; break }
        }
        #expect(answer == .ack(seq: 1, rev: 3, duplicate: false,
                               ops: try ops(#"[{"op":"test","path":"/cart/1","value":"c"},{"op":"remove","path":"/cart/1"}]"#)))
        // A test of what Alice removed fails on Bob's node, though something else sits at its index now.
        try await bob.send(.patch(seq: 2, ops: try ops(#"[{"op":"test","path":"/cart/0","value":"a"}]"#), base: 1))
        var refusal: ServerMessage?
        while let message = await bob.next(timeout: .seconds(30)) {
            if case .reject = message { refusal = message; break }
            if case .ack = message { refusal = message; break }
        }
        guard case .reject(2, .testFailed, _)? = refusal else {
            Issue.record("expected test_failed, got \(String(describing: refusal))")
            return
        }
        let (late, welcome) = try await Self.join(nodes[0].syncURL, user: "late", client: "late", loop: group.next())
        guard case .state(let state) = welcome.sync else { Issue.record("expected a snapshot"); return }
        #expect(state["cart"] == ["b"], "\(state)")
        for client in [alice, bob, late] { await client.socket.close() }
        for node in nodes { await node.shutdown() }
        await Self.shutDown(group)
        await redis.stop()
    }

    @Test("a node is killed with SIGKILL: its client resumes on another node by replay, and no acknowledged patch is lost")
    func killedNodeClientsResumeElsewhere() async throws {
        let redis = try await RedisServerProcess.start()
        let survivor = try Self.startNode(redisPort: redis.port)
        let group = try EventLoopGroup(threads: 2)
        let (victim, victimURL) = try await CrashDurabilityTests.offload {
            try CrashDurabilityTests.serve(data: SyncServerTests.temporaryDirectory(), secret: Self.secret,
                                           extra: ["--in-memory", "--redis", "redis://127.0.0.1:\(redis.port)", "--node-id", "victim"])
        }
        let (watcher, _) = try await Self.join(survivor.syncURL, user: "bob", client: "b1", loop: group.next())
        let (alice, welcome) = try await Self.join(victimURL, user: "alice", client: "a1", loop: group.next())
        let total = 400
        Task {
            for seq in 1...total { try? await alice.send(.patch(seq: Int64(seq), ops: Self.set("k\(seq)", seq))) }
        }
        var acked: [Int64: Int64] = [:]
        while acked.count < 100, let message = await alice.next(timeout: .seconds(30)) {
            if case .ack(let seq, let rev, _, _) = message { acked[seq] = rev }
        }
        kill(victim.processIdentifier, SIGKILL)
        await CrashDurabilityTests.offload { victim.waitUntilExit() }
        while let message = await alice.next(timeout: .milliseconds(300)) {
            if case .ack(let seq, let rev, _, _) = message { acked[seq] = rev }
        }
        #expect(acked.count >= 100)

        let (again, resumed) = try await Self.join(survivor.syncURL, user: "alice", client: "a1",
                                                   resume: ResumePoint(epoch: welcome.epoch, rev: 0), loop: group.next())
        #expect(resumed.epoch == welcome.epoch, "a node's death must not change the room's epoch")
        guard case .replay(let events) = resumed.sync else { Issue.record("expected a replay, got a snapshot"); return }
        #expect(events.map(\.rev) == Array(1...resumed.rev))
        var document = Document()
        for event in events { try document.apply(event.ops) }
        for (seq, rev) in acked {
            #expect(document.root["k\(seq)"] == .number(Double(seq)), "acked seq \(seq) lost")
            #expect(events.first { $0.seq == seq }?.rev == rev)
        }
        #expect(resumed.rev >= Int64(acked.values.max() ?? 0))
        #expect(resumed.lastSeq == resumed.rev, "lastSeq must match the replayed history")
        // The watcher on the surviving node saw the same patches, in order, once.
        #expect(await Self.revs(watcher, count: Int(resumed.rev)) == Array(1...resumed.rev))
        // And writing goes on through the survivor.
        try await again.send(.patch(seq: resumed.lastSeq + 1, ops: Self.set("after", 1)))
        #expect(await Self.revs(again, count: 1) == [resumed.rev + 1])
        await survivor.shutdown()
        await Self.shutDown(group)
        await redis.stop()
    }

    @Test("Redis restarts (AOF, persistence not trusted): the room gets a new epoch and its clients a snapshot that kept every acknowledged patch")
    func redisRestartGivesNewEpochAndSnapshot() async throws {
        let first = try await RedisServerProcess.start(appendOnly: true)
        let node = try Self.startNode(redisPort: first.port)
        let group = try EventLoopGroup(threads: 1)
        let (client, welcome) = try await Self.join(node.syncURL, user: "alice", client: "a1", loop: group.next())
        for seq in 1...10 { try await client.send(.patch(seq: Int64(seq), ops: Self.set("k\(seq)", seq))) }
        #expect(await Self.revs(client, count: 10) == Array(1...10))
        await first.stop(keepingData: true)
        let second = try await RedisServerProcess.start(port: first.port, directory: first.directory, appendOnly: true)
        // The next write finds a Redis that restarted: the room's history may have rewound, so it is reset.
        try await client.send(.patch(seq: 11, ops: Self.set("k11", 11)))
        #expect(await client.closeCode(timeout: .seconds(30)) == CloseCode.internalError.rawValue)

        let (_, after) = try await Self.join(node.syncURL, user: "alice", client: "a1",
                                             resume: ResumePoint(epoch: welcome.epoch, rev: 10), loop: group.next())
        #expect(after.epoch != welcome.epoch)
        guard case .state(let state) = after.sync else { Issue.record("expected a snapshot after the epoch change"); return }
        for seq in 1...10 { #expect(state["k\(seq)"] == .number(Double(seq)), "acked seq \(seq) lost") }
        // Seq 11 reached Redis before the reset was noticed: it is in the state, and lastSeq says so.
        #expect(after.lastSeq == 11 && state["k11"] == .number(11))
        #expect(after.rev == 11)
        await node.shutdown()
        await Self.shutDown(group)
        await second.stop()
    }

    @Test("Redis restarts without persistence: the node brings the room back from its memory in a new epoch; clients get it as a snapshot")
    func redisLosesEverythingAndANodeReseeds() async throws {
        let first = try await RedisServerProcess.start()
        let node = try Self.startNode(redisPort: first.port)
        let group = try EventLoopGroup(threads: 1)
        let (client, welcome) = try await Self.join(node.syncURL, user: "alice", client: "a1", loop: group.next())
        for seq in 1...10 { try await client.send(.patch(seq: Int64(seq), ops: Self.set("k\(seq)", seq))) }
        #expect(await Self.revs(client, count: 10) == Array(1...10))
        await first.stop()
        let second = try await RedisServerProcess.start(port: first.port)
        // The node's follower notices that the room is gone and resets it.
        #expect(await client.closeCode(timeout: .seconds(30)) == CloseCode.internalError.rawValue)

        let (again, after) = try await Self.join(node.syncURL, user: "alice", client: "a1",
                                                 resume: ResumePoint(epoch: welcome.epoch, rev: 10), loop: group.next())
        #expect(after.epoch != welcome.epoch && after.rev == 0)
        guard case .state(let state) = after.sync else { Issue.record("expected a snapshot after the epoch change"); return }
        for seq in 1...10 { #expect(state["k\(seq)"] == .number(Double(seq)), "seq \(seq) lost with Redis") }
        #expect(after.lastSeq == 10, "exactly-once progress comes back with the room")
        try await again.send(.patch(seq: 11, ops: Self.set("k11", 11)))
        #expect(await Self.revs(again, count: 1) == [1])
        await node.shutdown()
        await Self.shutDown(group)
        await second.stop()
    }

    /// The next message matching `match`, skipping others (bounded: 30 s).
    static func first<T>(_ client: ProtocolClient, _ match: (ServerMessage) -> T?) async -> T? {
        while let message = await client.next(timeout: .seconds(30)) {
            if let found = match(message) { return found }
        }
        return nil
    }

    @Test("participants on different nodes see each other join, change presence and leave")
    func presenceAcrossNodes() async throws {
        let redis = try await RedisServerProcess.start()
        let fast: (inout ServerConfiguration) -> Void = {
            $0.clusterPresenceInterval = .milliseconds(100)
            $0.clusterPresenceTTL = .milliseconds(5_000)
        }
        let a = try Self.startNode(redisPort: redis.port, fast), b = try Self.startNode(redisPort: redis.port, fast)
        let group = try EventLoopGroup(threads: 1)
        let (alice, _) = try await Self.join(a.syncURL, user: "alice", client: "a1", loop: group.next())
        let (bob, bobWelcome) = try await Self.join(b.syncURL, user: "bob", client: "b1", loop: group.next())
        if !bobWelcome.participants.contains(where: { $0.client == "a1" }) {
            let joined = await Self.first(bob) { if case .join(let p) = $0, p.client == "a1" { p } else { nil } }
            #expect(joined?.user == "alice", "bob on node B must learn that alice joined on node A")
        }
        let seen = await Self.first(alice) { if case .join(let p) = $0, p.client == "b1" { p } else { nil } }
        #expect(seen?.user == "bob")

        try await alice.send(.presence(data: .object(["scroll": .number(120)])))
        let moved = await Self.first(bob) { if case .presence(let peer, let data) = $0, peer.client == "a1" { data } else { nil } }
        #expect(moved == .object(["scroll": .number(120)]))

        await alice.socket.close()
        let left = await Self.first(bob) { if case .leave(let peer) = $0 { peer } else { nil } }
        #expect(left?.client == "a1", "a clean leave on node A reaches node B")
        // A participant that joins after that sees only who is there.
        let (_, carol) = try await Self.join(a.syncURL, user: "carol", client: "c1", loop: group.next())
        #expect(!carol.participants.contains { $0.client == "a1" })
        await a.shutdown()
        await b.shutdown()
        await Self.shutDown(group)
        await redis.stop()
    }

    @Test("a signal reaches participants on every node once, and not its sender")
    func signalsAcrossNodes() async throws {
        let redis = try await RedisServerProcess.start()
        let a = try Self.startNode(redisPort: redis.port), b = try Self.startNode(redisPort: redis.port)
        let group = try EventLoopGroup(threads: 1)
        let (alice, _) = try await Self.join(a.syncURL, user: "alice", client: "a1", loop: group.next())
        let (carol, _) = try await Self.join(a.syncURL, user: "carol", client: "c1", loop: group.next())
        let (bob, _) = try await Self.join(b.syncURL, user: "bob", client: "b1", loop: group.next())
        // Node B follows the room from its first poll on; a patch through B proves that poll happened.
        try await bob.send(.patch(seq: 1, ops: Self.set("ready", 1)))
        #expect(await Self.first(bob) { if case .ack = $0 { true } else { nil } } == true)
        for index in 1...3 { try await alice.send(.signal(event: "pointer", data: .object(["x": .number(Double(index))]))) }
        try await alice.send(.ping(t: 42))
        for (name, client) in [("bob", bob), ("carol", carol)] {
            var xs: [Double] = []
            while xs.count < 3, let message = await client.next(timeout: .seconds(30)) {
                if case .signal(let from, "pointer", .object(let data)) = message, from.client == "a1", case .number(let x)? = data["x"] { xs.append(x) }
            }
            #expect(xs == [1, 2, 3], "\(name) must get alice's signals once, in order")
        }
        // Node A must not relay its own signals again when they come back from Redis: the poll that
        // brings rev 3 has read every signal published before rev 2 was appended.
        var echoes = 0
        for seq in Int64(2)...3 {
            try await bob.send(.patch(seq: seq, ops: Self.set("ready", Int(seq))))
            while let message = await carol.next(timeout: .seconds(30)) {
                if case .signal = message { echoes += 1 }
                if case .patch(let event) = message, event.rev == seq { break }
            }
        }
        #expect(echoes == 0, "carol, on alice's node, got alice's signals twice")
        // Alice's own signals never come back to her: the next thing she sees is the answer to her ping.
        let reply = await Self.first(alice) { message -> ServerMessage? in
            switch message {
            case .signal, .pong: message
            default: nil
            }
        }
        #expect(reply == .pong(t: 42))
        await a.shutdown()
        await b.shutdown()
        await Self.shutDown(group)
        await redis.stop()
    }

    @Test("a node killed with SIGKILL: its participants leave on the other nodes once their presence entries lapse")
    func deadNodesParticipantsLeaveAfterTheTTL() async throws {
        let redis = try await RedisServerProcess.start()
        let survivor = try Self.startNode(redisPort: redis.port) { $0.clusterPresenceInterval = .milliseconds(100) }
        let group = try EventLoopGroup(threads: 1)
        let (victim, victimURL) = try await CrashDurabilityTests.offload {
            try CrashDurabilityTests.serve(data: SyncServerTests.temporaryDirectory(), secret: Self.secret,
                                           extra: ["--in-memory", "--redis", "redis://127.0.0.1:\(redis.port)",
                                                   "--presence-ttl", "1500", "--presence-interval", "100"])
        }
        let (bob, _) = try await Self.join(survivor.syncURL, user: "bob", client: "b1", loop: group.next())
        let (alice, _) = try await Self.join(victimURL, user: "alice", client: "a1", loop: group.next())
        let joined = await Self.first(bob) { if case .join(let p) = $0, p.client == "a1" { p } else { nil } }
        #expect(joined != nil)
        kill(victim.processIdentifier, SIGKILL)
        await CrashDurabilityTests.offload { victim.waitUntilExit() }
        let clock = ContinuousClock(), killed = clock.now
        let left = await Self.first(bob) { if case .leave(let peer) = $0 { peer } else { nil } }
        #expect(left?.client == "a1")
        #expect(clock.now - killed < .seconds(15), "the leave must come about one TTL after the death")
        _ = alice
        await survivor.shutdown()
        await Self.shutDown(group)
        await redis.stop()
    }

    @Test("--redis-commit-interval reaches the node: a call that follows another within the interval waits for it")
    func theCommitIntervalPacesTheNodesCalls() async throws {
        let redis = try await RedisServerProcess.start()
        let node = try Self.startNode(redisPort: redis.port) { $0.clusterCommitInterval = .microseconds(600_000) }
        let group = try EventLoopGroup(threads: 1)
        let (client, _) = try await Self.join(node.syncURL, user: "alice", client: "a1", loop: group.next())
        try await client.send(.patch(seq: 1, ops: Self.set("one", 1)))
        #expect(await Self.revs(client, count: 1) == [1])
        let clock = ContinuousClock()
        let sent = clock.now
        try await client.send(.patch(seq: 2, ops: Self.set("two", 2)))
        #expect(await Self.revs(client, count: 1) == [2])
        // The first call began a pause of 600 ms; only its end lets the second call go.
        #expect(sent.duration(to: clock.now) >= .milliseconds(300))
        await node.shutdown()
        await Self.shutDown(group)
        await redis.stop()
    }

    @Test("exactly-once memory is bounded in Redis by --max-clients; a node loading the room welcomes a client id it forgot with forgotten")
    func forgottenClientsAcrossNodes() async throws {
        let redis = try await RedisServerProcess.start()
        let first = try Self.startNode(redisPort: redis.port) {
            $0.maxTrackedClientsPerRoom = 16
            $0.snapshotInterval = 18
        }
        let group = try EventLoopGroup(threads: 1)
        for n in 1...18 {
            let (client, _) = try await Self.join(first.syncURL, user: "u\(n)", client: "c\(n)", loop: group.next())
            try await client.send(.patch(seq: 1, ops: Self.set("k\(n)", n)))
            #expect(await Self.revs(client, count: 1) == [Int64(n)])
            await client.socket.close()
        }
        // The snapshot at rev 18 drops the two clients applied first (cap 16, and a sixteenth).
        let admin = RedisClient(configuration: .init(endpoint: try RedisEndpoint(url: "redis://127.0.0.1:\(redis.port)")), group: group)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(30))
        while try await admin.send(["HGET", "tandem:{lobby}:meta", "forgot"]).string != "1", clock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try await admin.send(["HEXISTS", "tandem:{lobby}:meta", "c:c1"]).integer == 0)
        let second = try Self.startNode(redisPort: redis.port)
        let (forgotten, welcome) = try await Self.join(second.syncURL, user: "u1", client: "c1", loop: group.next())
        #expect(welcome.forgotten && welcome.lastSeq == 0)
        let (known, knownWelcome) = try await Self.join(second.syncURL, user: "u3", client: "c3", loop: group.next())
        #expect(!knownWelcome.forgotten && knownWelcome.lastSeq == 1)
        await forgotten.socket.close()
        await known.socket.close()
        await admin.close()
        await first.shutdown()
        await second.shutdown()
        await Self.shutDown(group)
        await redis.stop()
    }

    @Test("an idle room is unloaded and released on its node; a later join reloads it from Redis with what other nodes wrote meanwhile")
    func unloadAndReload() async throws {
        let redis = try await RedisServerProcess.start()
        let group = try EventLoopGroup(threads: 1)
        var settings = ServerConfiguration()
        settings.rateLimit = 0
        let node = ClusterNode(settings: ClusterNode.Settings(redis: .server(RedisEndpoint(host: "127.0.0.1", port: redis.port)), nodeID: "n1",
                                                              logLength: 10_000, limits: PatchLimits()),
                               group: group, logger: .discarding, wallClock: { 0 })
        let harness = ServerHarness(configuration: settings) { _, rooms in ClusterSequencing(node: node, settings: rooms.core, group: group) }
        let (alice, aliceSink, _) = await harness.join(user: "alice", client: "a1")
        alice.send(.patch(seq: 1, ops: Self.set("one", 1)))
        #expect(await aliceSink.nextMessage(ofType: "ack", timeout: .seconds(30)) == .ack(seq: 1, rev: 1, duplicate: false))
        weak let unloaded = harness.registry.loadedRoom("lobby")
        #expect(unloaded != nil)
        alice.connectionClosed(clean: true)
        harness.scheduler.advance(by: .seconds(60))
        #expect(harness.registry.loadedCount == 0)
        var released = false
        for _ in 0..<3_000 where !released {
            released = await node.engine.state(of: "lobby") == nil
            if !released { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(released, "the node must stop following the released room")
        #expect(unloaded == nil, "nothing keeps an unloaded room alive (its link let go of it)")

        // Another node writes while this one does not serve the room.
        let other = try Self.startNode(redisPort: redis.port)
        let (writer, _) = try await Self.join(other.syncURL, user: "carol", client: "c1", loop: group.next())
        try await writer.send(.patch(seq: 1, ops: Self.set("two", 2)))
        #expect(await Self.revs(writer, count: 1) == [2])

        let (_, bobSink, welcome) = await harness.join(user: "bob", client: "b1", resume: ResumePoint(epoch: "?", rev: 0))
        #expect(welcome?.rev == 2)
        guard case .state(let state)? = welcome?.sync else { Issue.record("expected a snapshot"); return }
        #expect(state == .object(["one": .number(1), "two": .number(2)]))
        // The reloaded room follows the log again.
        try await writer.send(.patch(seq: 2, ops: Self.set("three", 3)))
        guard case .patch(let event)? = await bobSink.nextMessage(ofType: "patch", timeout: .seconds(30)) else { Issue.record("no patch after reload"); return }
        #expect(event.rev == 3)
        await other.shutdown()
        await node.shutdown()
        await Self.shutDown(group)
        await redis.stop()
    }

    @Test("Redis goes away: a patch's sender is closed with 1011 once the node gives up reconnecting; other sessions stay open")
    func redisUnreachable() async throws {
        let redis = try await RedisServerProcess.start()
        let node = try Self.startNode(redisPort: redis.port)
        let group = try EventLoopGroup(threads: 1)
        let (writer, _) = try await Self.join(node.syncURL, user: "alice", client: "a1", loop: group.next())
        let (reader, _) = try await Self.join(node.syncURL, user: "bob", client: "b1", loop: group.next())
        try await writer.send(.patch(seq: 1, ops: Self.set("k", 1)))
        #expect(await Self.revs(writer, count: 1) == [1])
        await redis.stop()
        try await writer.send(.patch(seq: 2, ops: Self.set("k", 2)))
        let closing = await Self.first(writer) { if case .error(_, let text) = $0 { text } else { nil } }
        #expect(closing?.contains("the cluster could not sequence your change") == true, "\(String(describing: closing))")
        #expect(await writer.closeCode(timeout: .seconds(30)) == CloseCode.internalError.rawValue)
        try await reader.send(.ping(t: 7))
        #expect(await Self.first(reader) { if case .pong(let t) = $0 { t } else { nil } } == 7, "a session that did not write stays open")
        await node.shutdown()
        await Self.shutDown(group)
    }

    @Test("a node refuses to start when Redis does not answer, naming the address")
    func startFailsWithoutRedis() async throws {
        let port = try RedisServerProcess.freeLoopbackPort()
        let node = try Self.startNode(redisPort: port)
        var failure: ServerStartError?
        do {
            try await node.checkCluster()
        } catch {
            failure = error
        }
        #expect(failure?.description.contains("127.0.0.1:\(port)") == true, "\(String(describing: failure))")
        await node.shutdown()
    }

    @Test("a configuration naming Redis is refused by the local sequencing, and the cluster's needs a Redis address")
    func theSequencingMustMatchTheConfiguration() throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.inMemoryStorage = true
        configuration.redisURL = "redis://127.0.0.1:1"
        do {
            _ = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": Self.secret], logger: .discarding)
            Issue.record("a server alone started with a Redis address")
        } catch {
            #expect(error.description.contains("sequencing: .cluster"), "\(error)")
        }
        configuration.redisURL = nil
        do {
            _ = try SyncServer(configuration: configuration, sequencing: .cluster, environment: ["TANDEM_SECRET": Self.secret], logger: .discarding)
            Issue.record("a cluster without a Redis address started")
        } catch {
            #expect(error.description.contains("redisURL"), "\(error)")
        }
    }

    static func shutDown(_ group: EventLoopGroup) async {
        await CrashDurabilityTests.offload { group.shutdown() }
    }
}

@Suite struct ClusterPresenceSyncTests {
    @Test("a node writes its presence entries when they change or a third of the TTL after the last write, not every tick")
    func writesOnlyWhenDue() {
        let alice: [String: [UInt8]] = ["a1": Array("alice".utf8)]
        #expect(ClusterPresenceSync.mustWrite(alice, at: 0, last: nil, every: 5_000), "the first tick writes")
        let written = ClusterPresenceSync.Refreshed(participants: alice, at: 1_000)
        #expect(!ClusterPresenceSync.mustWrite(alice, at: 2_000, last: written, every: 5_000), "nothing changed, not due")
        #expect(ClusterPresenceSync.mustWrite(alice, at: 6_000, last: written, every: 5_000), "due after a third of the TTL")
        #expect(ClusterPresenceSync.mustWrite(["a1": Array("alice, scrolled".utf8)], at: 1_100, last: written, every: 5_000), "presence data changed")
        #expect(ClusterPresenceSync.mustWrite(alice.merging(["b1": []]) { a, _ in a }, at: 1_100, last: written, every: 5_000), "someone joined")
    }
}
