import Foundation
import Testing
import TandemClient
import TandemProtocol
import TandemSubprocess
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// The rooms API of the real `tandem serve` binary, killed with SIGKILL: what was answered 200 is there
/// after the restart, with its history; a deleted room stays deleted and comes back in a new epoch.
@Suite(.serialized) struct RoomAPIProcessTests {
    static let secret = "rooms-process-test"

    static func backend() -> String {
        TokenVerifier(secret: Array(secret.utf8), hmac: { Digest.hmacSHA256(key: $0, message: $1) }, now: { Int64(Date().timeIntervalSince1970) })
            .mint(TokenClaims(sub: "backend", room: TokenClaims.anyRoom, role: .host, exp: Int64(Date().timeIntervalSince1970) + 600))
    }

    static func api(_ syncURL: String) -> String {
        "http://127.0.0.1:\(ServeProcess.port(of: syncURL) ?? 0)"
    }

    @Test func writesAnswered200SurviveKillDashNineWithTheirHistory() async throws {
        let data = SyncServerTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let (first, url) = try await offload { try ServeProcess.serve(data: data, secret: Self.secret) }
        let rooms = RoomsClient(baseURL: Self.api(url), token: Self.backend(), group: group)
        var revs: [Int64] = []
        for index in 1...20 {
            revs.append(try await rooms.write("durable", ops: [.set(JSONPointer(tokens: ["k\(index)"]), .number(Double(index)))]))
        }
        let doomed = try await rooms.write("doomed", ops: [.set(JSONPointer(tokens: ["x"]), 1)])
        #expect(doomed == 1)
        try await rooms.delete("doomed")
        let before = try await rooms.room("durable")
        kill(first.processIdentifier, SIGKILL)
        try await offload { first.waitUntilExit() }

        let (second, secondURL) = try await offload { try ServeProcess.serve(data: data, secret: Self.secret) }
        defer { second.terminate() }
        let again = RoomsClient(baseURL: Self.api(secondURL), token: Self.backend(), group: group)
        let after = try await again.room("durable")
        #expect(revs == Array(1...20) && after.rev == 20 && after.epoch == before.epoch && after.state == before.state)
        let history = try await again.history("durable")
        #expect(history.patches.map(\.rev) == Array(1...20) && history.patches.allSatisfy { $0.user == "backend" && $0.client == "http" })
        #expect(try await again.state("durable", rev: 7) == .object((1...7).reduce(into: [:]) { $0["k\($1)"] = .number(Double($1)) }))
        await #expect { _ = try await again.room("doomed") } throws: { error in
            if case RoomsClientError.notFound = error { true } else { false }
        }
        // Written again, it is a new room.
        #expect(try await again.write("doomed", ops: [.set(JSONPointer(tokens: ["y"]), 2)]) == 1)
        #expect(try await again.room("doomed").state == ["y": 2])
    }

    /// The same contract through two `tandem serve --redis` nodes: writes through either node are in one
    /// history, a node killed with SIGKILL loses none of what it answered 200, a node started later reads
    /// everything, a delete holds across nodes and the room comes back as a new one.
    @Test func theRoomsAPIOfClusterNodesSurvivesANodeKilledWithSIGKILL() async throws {
        let redis = try await RedisServerProcess.start(appendOnly: true)
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        func node(_ name: String) async throws -> (ChildProcess, RoomsClient) {
            let (process, url) = try await offload {
                try ServeProcess.serve(data: SyncServerTests.temporaryDirectory(), secret: Self.secret,
                                       extra: ["--in-memory", "--redis", "redis://127.0.0.1:\(redis.port)", "--node-id", name])
            }
            return (process, RoomsClient(baseURL: Self.api(url), token: Self.backend(), group: group))
        }
        let (victim, a) = try await node("a")
        let (survivor, b) = try await node("b")
        defer { survivor.terminate() }
        var revs: [Int64] = []
        for index in 1...20 {
            revs.append(try await (index % 2 == 0 ? a : b).write("durable", ops: [.set(JSONPointer(tokens: ["k\(index)"]), .number(Double(index)))]))
        }
        #expect(revs == Array(1...20))
        await #expect { _ = try await a.write("durable", ops: [.set(JSONPointer(tokens: ["late"]), 1)], ifRev: 19) } throws: { error in
            if case RoomsClientError.conflict(20, _) = error { true } else { false }
        }
        #expect(try await b.write("doomed", ops: [.set(JSONPointer(tokens: ["x"]), 1)]) == 1)
        let before = try await a.room("durable")
        kill(victim.processIdentifier, SIGKILL)
        try await offload { victim.waitUntilExit() }

        let history = try await b.history("durable")
        #expect(history.patches.map(\.rev) == Array(1...20) && history.patches.allSatisfy { $0.user == "backend" && $0.client == "http" })
        #expect(Set(history.patches.map(\.seq)).count == 20, "one seq per write, whichever node took it")
        let (late, c) = try await node("c")
        defer { late.terminate() }
        let after = try await c.room("durable")
        #expect(after.rev == 20 && after.epoch == before.epoch && after.state == before.state)
        #expect(try await c.state("durable", rev: 7) == .object((1...7).reduce(into: [:]) { $0["k\($1)"] = .number(Double($1)) }))
        await #expect { _ = try await c.state("durable", rev: 21) } throws: { error in
            if case RoomsClientError.notFound = error { true } else { false }
        }

        let stranger = RoomsClient(baseURL: c.baseURL, token: TokenVerifier(secret: Array(Self.secret.utf8), hmac: { Digest.hmacSHA256(key: $0, message: $1) },
                                                                             now: { Int64(Date().timeIntervalSince1970) })
            .mint(TokenClaims(sub: "eve", room: "elsewhere", role: .host, exp: Int64(Date().timeIntervalSince1970) + 600)), group: group)
        await #expect { _ = try await stranger.room("durable") } throws: { error in
            if case RoomsClientError.forbidden = error { true } else { false }
        }

        let doomedEpoch = try await c.room("doomed").epoch
        try await c.delete("doomed")
        await #expect { _ = try await b.room("doomed") } throws: { error in
            if case RoomsClientError.notFound = error { true } else { false }
        }
        #expect(try await b.write("doomed", ops: [.set(JSONPointer(tokens: ["y"]), 2)]) == 1)
        let reborn = try await c.room("doomed")
        #expect(reborn.state == ["y": 2] && reborn.rev == 1 && reborn.epoch != doomedEpoch)
        await redis.stop()
    }
}
