import Testing
@testable import TandemCluster
import TandemProtocol
import TandemRedis
import TandemServer
import TandemTestSupport

@Suite("Webhooks of a cluster in Redis", .serialized, .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct RedisWebhookLogTests {
    static let endpoints = ["http://a.test/hook", "http://b.test/hook"]

    static func participant(_ client: String, role: Role = .guest) -> Participant {
        Participant(user: "u-\(client)", client: client, role: role, name: "N \(client)")
    }

    /// What the lease holder takes, as "type room detail" lines of the first endpoint, after checking
    /// that every endpoint got the same events in the same order.
    static func take(_ log: RedisWebhookLog, token: String = "t", now: Int64) async throws -> [String] {
        guard let taken = try await log.tick(token: token, now: now, leaseTTL: 10_000, idPrefix: "00000000000000000000", endpoints: endpoints) else {
            Issue.record("the lease was lost")
            return []
        }
        #expect(!taken.more)
        var lines: [String: [String]] = [:]
        var ids: [String: [String]] = [:]
        for delivery in taken.deliveries {
            guard case .object(let body) = try JSONValue.parse(String(decoding: delivery.body, as: UTF8.self)) else { continue }
            var detail = ""
            if case .string(let client)? = body["client"] { detail = " \(client)" }
            if case .number(let rev)? = body["rev"], case .array(let paths)? = body["paths"] {
                detail = " \(Int(rev)) \(paths.compactMap { if case .string(let path) = $0 { path } else { nil } }.joined(separator: ","))"
                if body["pathsTruncated"] == .bool(true) { detail += " truncated" }
            }
            #expect(body["id"] == .string(delivery.eventID) && body["room"] == .string(delivery.room))
            lines[delivery.endpoint, default: []].append("\(delivery.room) \(body["type"].flatMap { if case .string(let t) = $0 { t } else { nil } } ?? "?")\(detail)")
            ids[delivery.endpoint, default: []].append(delivery.eventID)
        }
        #expect(lines[endpoints[0]] == lines[endpoints[1]] || taken.deliveries.isEmpty)
        #expect(ids[endpoints[0]] == ids[endpoints[1]] || taken.deliveries.isEmpty)
        #expect(Set(ids[endpoints[0]] ?? []).count == (ids[endpoints[0]] ?? []).count, "event ids are unique")
        return lines[endpoints[0]] ?? []
    }

    static func withLog(_ body: (RedisWebhookLog) async throws -> Void) async throws {
        try await RedisTestContext.with { context in
            let log = RedisWebhookLog(client: context.client(), debounce: 1_000)
            #expect(try await log.acquire(token: "t", ttl: 10_000))
            try await body(log)
        }
    }

    @Test("a session spans nodes: started by the first join anywhere, ended by the last leave anywhere, its pending change first")
    func sessionAcrossNodes() async throws {
        try await Self.withLog { log in
            try await log.report([.joined(room: "r", participant: Self.participant("c1"))], node: "a", now: 1_000, nodeExpiry: 20_000, idPrefix: "a0000000000000000000")
            try await log.report([.joined(room: "r", participant: Self.participant("c2"))], node: "b", now: 1_001, nodeExpiry: 20_000, idPrefix: "b0000000000000000000")
            try await log.report([.changed(room: "r", rev: 3, paths: ["/x"], truncated: false), .left(room: "r", participant: Self.participant("c2"))],
                                 node: "b", now: 1_002, nodeExpiry: 20_000, idPrefix: "b0000000000000000001")
            try await log.report([.changed(room: "r", rev: 4, paths: ["/y"], truncated: false), .left(room: "r", participant: Self.participant("c1"))],
                                 node: "a", now: 1_003, nodeExpiry: 20_000, idPrefix: "a0000000000000000001")
            #expect(try await Self.take(log, now: 1_004) == [
                "r room.started", "r participant.joined c1", "r participant.joined c2", "r participant.left c2",
                "r state.changed 4 /x,/y", "r participant.left c1", "r room.ended",
            ])
            #expect(try await Self.take(log, now: 5_000) == [], "taken once; the window closed with the session")
        }
    }

    @Test("a client that moved to another node is one member: no events for the move, the old node's late leave is ignored")
    func reconnectToAnotherNode() async throws {
        try await Self.withLog { log in
            try await log.report([.joined(room: "r", participant: Self.participant("c1"))], node: "a", now: 1, nodeExpiry: 20_000, idPrefix: "a0000000000000000000")
            try await log.report([.joined(room: "r", participant: Self.participant("c1"))], node: "b", now: 2, nodeExpiry: 20_000, idPrefix: "b0000000000000000000")
            try await log.report([.left(room: "r", participant: Self.participant("c1"))], node: "a", now: 3, nodeExpiry: 20_000, idPrefix: "a0000000000000000001")
            #expect(try await Self.take(log, now: 4) == ["r room.started", "r participant.joined c1"])
            try await log.report([.left(room: "r", participant: Self.participant("c1"))], node: "b", now: 5, nodeExpiry: 20_000, idPrefix: "b0000000000000000001")
            try await log.report([.left(room: "r", participant: Self.participant("c1"))], node: "b", now: 6, nodeExpiry: 20_000, idPrefix: "b0000000000000000002")
            #expect(try await Self.take(log, now: 7) == ["r participant.left c1", "r room.ended"], "one leave, whatever is reported twice")
        }
    }

    @Test("the members of a node that stopped refreshing leave once its entry lapses; its late reports of them are ignored")
    func deadNodeIsReaped() async throws {
        try await Self.withLog { log in
            try await log.report([.joined(room: "r", participant: Self.participant("c1")), .joined(room: "r", participant: Self.participant("c2")),
                                  .joined(room: "s", participant: Self.participant("c3"))], node: "a", now: 1, nodeExpiry: 10_000, idPrefix: "a0000000000000000000")
            try await log.report([.joined(room: "r", participant: Self.participant("c4"))], node: "b", now: 2, nodeExpiry: 30_000, idPrefix: "b0000000000000000000")
            #expect(try await Self.take(log, now: 9_999).count == 6)
            #expect(try await Self.take(log, now: 10_000) == ["r participant.left c1", "r participant.left c2", "s participant.left c3", "s room.ended"])
            #expect(try await !log.heartbeat(node: "a", expiry: 40_000), "a node told it was reaped reports its participants again")
            try await log.report([.left(room: "r", participant: Self.participant("c1"))], node: "a", now: 10_001, nodeExpiry: 40_000, idPrefix: "a0000000000000000001")
            #expect(try await log.heartbeat(node: "b", expiry: 40_000))
            #expect(try await Self.take(log, now: 10_002) == [])
        }
    }

    @Test("changes share one window per room across nodes: one state.changed at its end with the newest rev and every path; older revs after it are not reported again")
    func changeWindow() async throws {
        try await Self.withLog { log in
            try await log.report([.changed(room: "r", rev: 1, paths: ["/a"], truncated: false)], node: "a", now: 1_000, nodeExpiry: 90_000, idPrefix: "a0000000000000000000")
            try await log.report([.changed(room: "r", rev: 3, paths: ["/b", "/a"], truncated: false)], node: "b", now: 1_500, nodeExpiry: 90_000, idPrefix: "b0000000000000000000")
            try await log.report([.changed(room: "r", rev: 2, paths: ["/c"], truncated: false)], node: "a", now: 1_600, nodeExpiry: 90_000, idPrefix: "a0000000000000000001")
            #expect(try await Self.take(log, now: 1_999) == [])
            #expect(try await Self.take(log, now: 2_000) == ["r state.changed 3 /a,/b,/c"])
            try await log.report([.changed(room: "r", rev: 2, paths: ["/late"], truncated: false)], node: "a", now: 2_001, nodeExpiry: 90_000, idPrefix: "a0000000000000000002")
            #expect(try await Self.take(log, now: 9_000) == [], "rev 2 was covered by the window of rev 3")
            let many = Set((0..<300).map { "/p\($0)" })
            try await log.report([.changed(room: "r", rev: 4, paths: many, truncated: false)], node: "a", now: 9_001, nodeExpiry: 90_000, idPrefix: "a0000000000000000003")
            let closed = try await Self.take(log, now: 10_001)
            #expect(closed.count == 1 && closed[0].hasSuffix(" truncated"))
            #expect(closed.first.map { $0.split(separator: " ")[3].split(separator: ",").count } == WebhookEmitter.maxPaths)
        }
    }

    @Test("one lease holder at a time: a node without the lease takes nothing; each event becomes deliveries once, kept with their retry state until removed")
    func leaseAndQueue() async throws {
        try await RedisTestContext.with { context in
            let log = RedisWebhookLog(client: context.client(), debounce: 1_000)
            #expect(try await log.acquire(token: "one", ttl: 10_000))
            #expect(try await !log.acquire(token: "two", ttl: 10_000))
            try await log.report([.event(room: "r", kind: .inviteAccepted, fields: ["user": "u"]), .event(room: "r", kind: .participantRemoved, fields: ["user": "u", "by": "h"])],
                                 node: "a", now: 5, nodeExpiry: 90_000, idPrefix: "a0000000000000000000")
            #expect(try await log.tick(token: "two", now: 6, leaseTTL: 10_000, idPrefix: "00000000000000000000", endpoints: Self.endpoints) == nil)
            let taken = try #require(try await log.tick(token: "one", now: 6, leaseTTL: 10_000, idPrefix: "00000000000000000000", endpoints: Self.endpoints))
            #expect(taken.deliveries.map(\.seq) == [1, 2, 3, 4])
            #expect(taken.deliveries.map(\.endpoint) == Self.endpoints + Self.endpoints)
            #expect(taken.deliveries[0].eventID == "a0000000000000000000000000000001")
            try await log.remove(seq: 1)
            try await log.reschedule(seq: 2, failures: 3, due: 9_999)
            try await log.release(token: "two")
            #expect(try await !log.acquire(token: "two", ttl: 10_000), "only the holder gives the lease up")
            try await log.release(token: "one")
            #expect(try await log.acquire(token: "two", ttl: 10_000))
            let pending = try await log.pending()
            #expect(pending.map(\.seq) == [2, 3, 4])
            #expect(pending[0].failures == 3 && pending[0].due == 9_999 && pending[0].body == taken.deliveries[1].body)
            #expect(pending[1].failures == 0 && pending[1].body == taken.deliveries[2].body)
            let again = try #require(try await log.tick(token: "two", now: 7, leaseTTL: 10_000, idPrefix: "00000000000000000000", endpoints: Self.endpoints))
            #expect(again.deliveries.isEmpty)
        }
    }

    @Test("a tick takes a bounded number of events and says more are waiting")
    func boundedTake() async throws {
        try await Self.withLog { log in
            let facts = (0..<5).map { WebhookFact.event(room: "r\($0)", kind: .inviteAccepted, fields: [:]) }
            try await log.report(facts, node: "a", now: 1, nodeExpiry: 90_000, idPrefix: "a0000000000000000000")
            let first = try #require(try await log.tick(token: "t", now: 2, leaseTTL: 10_000, idPrefix: "00000000000000000000", endpoints: ["http://x"], maxEvents: 3))
            #expect(first.deliveries.map(\.room) == ["r0", "r1", "r2"] && first.more)
            let second = try #require(try await log.tick(token: "t", now: 2, leaseTTL: 10_000, idPrefix: "00000000000000000000", endpoints: ["http://x"], maxEvents: 3))
            #expect(second.deliveries.map(\.room) == ["r3", "r4"] && !second.more)
        }
    }
}
