import Foundation
import Testing
import TandemProtocol
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// A server whose rooms remember few client ids: a client id it forgot is told so in its `welcome`.
@Suite struct ExactlyOnceMemoryTests {
    @Test func aForgottenClientIsToldItsProgressIsUnknown() async throws {
        var configuration = ServerConfiguration()
        configuration.historyWindow = 4 // progress leaves the patch history soon, so the clients table holds it
        configuration.port = 0
        configuration.dataDirectory = SyncServerTests.temporaryDirectory()
        configuration.helloTimeout = .seconds(60)
        configuration.handshakeTimeout = .seconds(60)
        configuration.maxTrackedClientsPerRoom = 16
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "test"], logger: .discarding)
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        func token(_ user: String) -> String {
            server.tokens.mint(TokenClaims(sub: user, room: "lobby", role: .host, exp: server.tokens.currentTime + 600))
        }
        func write(_ client: String, seq: Int64) async throws -> Welcome {
            let connection = try await ProtocolClient.connect(server.syncURL, loop: group.next())
            try await connection.send(.hello(Hello(token: token("u-\(client)"), client: client)))
            guard case .welcome(let welcome)? = await connection.next() else { throw ServeProcessError("no welcome for \(client)") }
            try await connection.send(.patch(seq: seq, ops: [.set(JSONPointer(tokens: [client]), 1)]))
            while let message = await connection.next() { if case .ack = message { break } }
            await connection.socket.close()
            return welcome
        }
        let first = try await write("early", seq: 1)
        #expect(!first.forgotten && first.lastSeq == 0)
        // 17 more writers: past 16 + 1 the least recently seen, "early", is forgotten.
        for index in 0..<17 { _ = try await write("w\(index)", seq: 1) }
        let again = try await write("early", seq: 2)
        #expect(again.forgotten && again.lastSeq == 0)
        let known = try await write("w16", seq: 2)
        #expect(!known.forgotten && known.lastSeq == 1)
        await server.shutdown()

        // After a restart on the same data the room still knows it forgot, and still knows w16.
        configuration.port = 0
        let restarted = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "test"], logger: .discarding)
        let welcomeAfter: (String) async throws -> Welcome = { client in
            let connection = try await ProtocolClient.connect(restarted.syncURL, loop: group.next())
            try await connection.send(.hello(Hello(token: restarted.tokens.mint(TokenClaims(sub: "u-\(client)", room: "lobby", role: .host,
                                                                                          exp: restarted.tokens.currentTime + 600)), client: client)))
            guard case .welcome(let welcome)? = await connection.next() else { throw ServeProcessError("no welcome for \(client)") }
            await connection.socket.close()
            return welcome
        }
        let stranger = try await welcomeAfter("never-wrote")
        #expect(stranger.forgotten, "the flag survives the restart")
        let survivor = try await welcomeAfter("w16")
        #expect(!survivor.forgotten && survivor.lastSeq == 2)
        await restarted.shutdown()
    }
}
