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
}
