import Foundation
import Testing
import TandemProtocol
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// A client id belongs to its user across cluster nodes: Redis keeps each (user, client id) pair's
/// progress apart, so another user naming the id on another node neither reads nor moves the owner's.
@Suite("Cluster: client ids belong to their user", .serialized, .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct ClusterClientIDOwnershipTests {
    typealias Cluster = ClusterServerTests

    /// Sends a patch and returns the first ack or reject.
    static func write(_ peer: ProtocolClient, seq: Int64, value: Int) async throws -> ServerMessage? {
        try await peer.send(.patch(seq: seq, ops: Cluster.set("n", value)))
        return await peer.answer()
    }

    @Test("Mallory names Alice's client id on another node: her welcome shows none of Alice's progress, and Alice keeps hers on every node")
    func anotherUserNamingYourClientIDOnAnotherNode() async throws {
        let redis = try await RedisServerProcess.start()
        let nodeA = try Cluster.startNode(redisPort: redis.port), nodeB = try Cluster.startNode(redisPort: redis.port)
        let group = try EventLoopGroup(threads: 1)
        var (alice, welcome) = try await Cluster.join(nodeA.syncURL, user: "alice", client: "ios", loop: group.next())
        #expect(try await Self.write(alice, seq: 1, value: 1) == .ack(seq: 1, rev: 1, duplicate: false))
        #expect(try await Self.write(alice, seq: 2, value: 2) == .ack(seq: 2, rev: 2, duplicate: false))
        await alice.socket.close()

        let (mallory, malloryWelcome) = try await Cluster.join(nodeB.syncURL, user: "mallory", client: "ios", role: .guest, loop: group.next())
        #expect(malloryWelcome.lastSeq == 0 && !malloryWelcome.forgotten)
        #expect(try await Self.write(mallory, seq: 1_000_000, value: 3) == .ack(seq: 1_000_000, rev: 3, duplicate: false))

        // Alice on Mallory's node, with Mallory connected: her own progress, her next seq applied, and her
        // resend of an older seq found in the log under her own field.
        (alice, welcome) = try await Cluster.join(nodeB.syncURL, user: "alice", client: "ios", loop: group.next())
        #expect(welcome.lastSeq == 2)
        #expect(try await Self.write(alice, seq: 3, value: 4) == .ack(seq: 3, rev: 4, duplicate: false))
        #expect(try await Self.write(alice, seq: 1, value: 1) == .ack(seq: 1, rev: 1, duplicate: true))
        await alice.socket.close()
        let (again, onA) = try await Cluster.join(nodeA.syncURL, user: "alice", client: "ios", loop: group.next())
        #expect(onA.lastSeq == 3)
        for peer in [again, mallory] { await peer.socket.close() }
        await nodeA.shutdown()
        await nodeB.shutdown()
        await Cluster.shutDown(group)
    }
}
