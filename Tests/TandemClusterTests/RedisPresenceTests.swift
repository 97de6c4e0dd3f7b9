import Testing
@testable import TandemCluster
import TandemRedis
import TandemTestSupport

@Suite("Presence across nodes", .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct RedisPresenceTests {
    @Test("each node's participants are visible to every node; a node that stops refreshing loses its participants after the TTL")
    func deadNodeParticipantsLapse() async throws {
        try await RedisTestContext.with { context in
            let nodeA = RedisPresence(client: context.client(), ttl: .seconds(15))
            let nodeB = RedisPresence(client: context.client(), ttl: .seconds(15))
            let start: Int64 = 1_000_000
            try await nodeA.refresh(room: "r", node: "a", participants: [("c1", Array("one".utf8)), ("c2", Array("two".utf8))], now: start)
            try await nodeB.refresh(room: "r", node: "b", participants: [("c3", Array("three".utf8))], now: start)
            #expect(try await nodeB.live(room: "r", now: start + 1).map { "\($0.node)/\($0.key)" } == ["a/c1", "a/c2", "b/c3"])
            #expect(try await nodeB.live(room: "r", now: start + 1).first?.data == Array("one".utf8))

            // Node b keeps refreshing; node a died at `start`.
            try await nodeB.refresh(room: "r", node: "b", participants: [("c3", Array("three!".utf8))], now: start + 10_000)
            #expect(try await nodeB.live(room: "r", now: start + 14_999).count == 3)
            let after = try await nodeB.live(room: "r", now: start + 15_000)
            #expect(after == [PresenceEntry(node: "b", key: "c3", data: Array("three!".utf8), expiresAt: start + 25_000)])
        }
    }

    @Test("a clean leave removes the entry at once; the same client on two nodes (a reconnect) shows both until the old one lapses")
    func leaveAndMove() async throws {
        try await RedisTestContext.with { context in
            let presence = RedisPresence(client: context.client(), ttl: .seconds(15))
            try await presence.refresh(room: "r", node: "a", participants: [("c1", [])], now: 0)
            try await presence.refresh(room: "r", node: "b", participants: [("c1", []), ("c2", [])], now: 5_000)
            #expect(try await presence.live(room: "r", now: 5_001).map(\.node) == ["a", "b", "b"])
            try await presence.remove(room: "r", node: "b", key: "c2")
            #expect(try await presence.live(room: "r", now: 15_000).map { "\($0.node)/\($0.key)" } == ["b/c1"])
        }
    }
}
