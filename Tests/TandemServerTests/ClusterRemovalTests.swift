import Foundation
import Testing
import TandemProtocol
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// A removal made on one node holds on every node of the cluster, for its open connections, every path of
/// the API and new joins, and for a node started later; a readmission made on another node lifts it.
@Suite(.serialized) struct ClusterRemovalTests {
    /// Whether `condition` holds within 30 s, polled every 20 ms.
    static func within(_ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test func aRemovalOnOneNodeHoldsOnEveryNodeUntilAReadmissionOnAnother() async throws {
        let redis = try await RedisServerProcess.start()
        let fast: (inout ServerConfiguration) -> Void = { $0.clusterPresenceInterval = .milliseconds(50) }
        let a = try ClusterServerTests.startNode(redisPort: redis.port, fast)
        let b = try ClusterServerTests.startNode(redisPort: redis.port, fast)
        let group = try EventLoopGroup(threads: 2)
        let loop = group.next()
        let gusToken = ClusterServerTests.token(user: "gus", role: .guest)
        let host = ClusterServerTests.token(user: "alice")
        let (gusOnB, _) = try await ClusterServerTests.join(b.syncURL, user: "gus", client: "g1", role: .guest, loop: loop)
        #expect(try await ClusterRoomAPITests.call(b, "GET", "/v1/rooms/lobby", token: gusToken, on: loop).status == 200)

        let removed = try await ClusterRoomAPITests.call(a, "POST", "/v1/rooms/lobby/remove", token: host, json: #"{"user":"gus"}"#, on: loop)
        #expect(removed.status == 200)
        // On the other node: his open connection is closed, his HTTP requests and his new joins are refused.
        #expect(await gusOnB.closeCode(timeout: .seconds(30)) == 4003)
        let refusedOnB = await Self.within {
            (try? await ClusterRoomAPITests.call(b, "GET", "/v1/rooms/lobby", token: gusToken, on: loop).status) == 403
        }
        #expect(refusedOnB)
        #expect(try await ClusterRoomAPITests.call(b, "POST", "/v1/rooms/lobby/patch", token: gusToken, json: ClusterRoomAPITests.set("x", 1), on: loop).status == 403)
        let again = try await ProtocolClient.connect(b.syncURL, loop: loop)
        try await again.send(.hello(Hello(token: gusToken, client: "g2")))
        #expect(await again.closeCode(timeout: .seconds(30)) == 4003)
        // A node started after the removal knows it from its first mirror on.
        let c = try ClusterServerTests.startNode(redisPort: redis.port, fast)
        let refusedOnC = await Self.within {
            (try? await ClusterRoomAPITests.call(c, "GET", "/v1/rooms/lobby", token: gusToken, on: loop).status) == 403
        }
        #expect(refusedOnC)
        #expect(try await ClusterRoomAPITests.call(c, "GET", "/v1/rooms/lobby/removed", token: host, on: loop).json?["users"] == .array(["gus"]))

        // Readmitted on b: a lets him in again.
        let readmitted = try await ClusterRoomAPITests.call(b, "POST", "/v1/rooms/lobby/readmit", token: host, json: #"{"user":"gus"}"#, on: loop)
        #expect(readmitted.status == 200 && readmitted.json?["readmitted"] == .bool(true))
        let twice = try await ClusterRoomAPITests.call(c, "POST", "/v1/rooms/lobby/readmit", token: host, json: #"{"user":"gus"}"#, on: loop)
        #expect(twice.status == 200 && twice.json?["readmitted"] == .bool(false), "the cluster no longer holds it")
        let backOnA = await Self.within {
            (try? await ClusterRoomAPITests.call(a, "GET", "/v1/rooms/lobby", token: gusToken, on: loop).status) == 200
        }
        #expect(backOnA)
        for node in [a, b, c] { await node.shutdown() }
        await ClusterServerTests.shutDown(group)
        await redis.stop()
    }
}
