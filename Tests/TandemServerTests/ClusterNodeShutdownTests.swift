import Foundation
import Synchronization
import Testing
import TandemProtocol
import TandemRedis
import TandemTestSupport
import TandemWire
@testable import TandemCluster
@testable import TandemServer

/// `ClusterNode.shutdown()` with a backlog of submissions: nothing of the node's room work may still run (and
/// reconnect to Redis) once it returns, or the exiting process crashes in the Swift runtime.
@Suite("Cluster node shutdown", .serialized, .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct ClusterNodeShutdownTests {
    @Test("a backlog of submissions is finished or failed before shutdown returns; none starts afterwards", .timeLimit(.minutes(1)))
    func shutdownLeavesNoRoomWorkBehind() async throws {
        let redis = try await RedisServerProcess.start()
        let group = try EventLoopGroup(threads: 1)
        let node = ClusterNode(
            settings: ClusterNode.Settings(redis: .server(RedisEndpoint(host: "127.0.0.1", port: redis.port)), nodeID: "n1",
                                           logLength: 10_000, limits: PatchLimits()),
            group: group, logger: .discarding, wallClock: { Int64(Date().timeIntervalSince1970 * 1_000) })
        let loaded = Mailbox<Bool>()
        node.load("backlog", settings: RoomCore.Settings()) { result in
            if case .success = result { loaded.push(true) } else { loaded.push(false) }
        }
        #expect(await loaded.next(timeout: .seconds(30)) == true)

        struct Tally { var applied = 0, shuttingDown = 0, other: [String] = [] }
        let tally = Mutex(Tally())
        let count = 400
        for seq in 1...count {
            let ops: [PatchOp] = [.set(try JSONPointer(parsing: "/k"), .number(Double(seq)))]
            node.submit(room: "backlog", client: "c1", user: "u1", seq: Int64(seq), ops: ops) { result in
                tally.withLock { tally in
                    switch result {
                    case .success(.applied): tally.applied += 1
                    case .failure(.roomReset(_, let reason)) where reason.contains("shutting down"): tally.shuttingDown += 1
                    default: tally.other.append("\(result)")
                    }
                }
            }
        }
        // The drain bound is a safety net, not what is tested: generous, so a loaded machine cannot cut it short.
        await node.shutdown(drainTimeout: .seconds(45))
        let atReturn = tally.withLock { $0 }
        #expect(atReturn.applied + atReturn.shuttingDown == count, "room work was still running after shutdown returned")
        // Handed to the engine before the node closed: group commit sends the backlog in a few script calls.
        #expect(atReturn.applied == count, "\(atReturn)")
        #expect(atReturn.other.isEmpty)

        // Work handed in after shutdown fails at once, without Redis.
        let late = Mailbox<String>()
        node.submit(room: "backlog", client: "c1", user: "u1", seq: Int64(count + 1), ops: []) { late.push("\($0)") }
        #expect(await late.next(timeout: .seconds(30))?.contains("shutting down") == true)
        await ClusterServerTests.shutDown(group)
        await redis.stop()
    }
}
