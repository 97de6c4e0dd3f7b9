import Testing
@testable import TandemClient
import TandemProtocol
import TandemTesting

/// `RoomsClient` against a real server: each call, and each refusal as its typed error.
@Suite struct RoomsClientTests {
    private static func ops(_ text: String) throws -> [PatchOp] { try PatchOp.list(from: try JSONValue.parse(text)) }

    @Test(arguments: HTTPKind.allCases)
    func aBackendReadsWritesAndDeletesARoom(over http: HTTPKind) async throws {
        let server = try TestServer()
        let base = "http://127.0.0.1:\(server.server.port)"
        let backend = RoomsClient(baseURL: base, token: server.token(user: "backend", room: TokenClaims.anyRoom), transport: http.transport(group: server.group))
        #expect(try await backend.write("lobby", ops: try Self.ops(#"[{"op":"set","path":"/cart","value":["a"]}]"#)) == 1)
        let room = try await backend.room("lobby")
        #expect(room.room == "lobby" && room.rev == 1 && room.state == ["cart": ["a"]] && room.participants.isEmpty)
        let page = try await backend.history("lobby", after: 0, limit: 10)
        #expect(page.epoch == room.epoch && page.next == nil && page.patches.map(\.client) == ["http"])
        #expect(try await backend.state("lobby", rev: 1) == ["cart": ["a"]])

        await #expect(throws: RoomsClientError.conflict(rev: 1, message: "the room is at rev 1, not 0; read it again and retry")) {
            try await backend.write("lobby", ops: try Self.ops(#"[{"op":"add","path":"/cart/-","value":"b"}]"#), ifRev: 0)
        }
        await #expect {
            try await backend.write("lobby", ops: try Self.ops(#"[{"op":"test","path":"/cart/0","value":"z"}]"#))
        } throws: { error in
            if case RoomsClientError.refused(.testFailed, _) = error { true } else { false }
        }
        let stranger = RoomsClient(baseURL: base, token: server.token(user: "eve", room: "other"), transport: http.transport(group: server.group))
        await #expect { _ = try await stranger.room("lobby") } throws: { error in
            if case RoomsClientError.forbidden = error { true } else { false }
        }
        let carol = server.session(user: "carol", client: "c1", presence: ["name": "Carol"])
        await carol.start()
        #expect(await carol.waitUntilConnected(timeout: .seconds(30)))
        let present = try await backend.room("lobby").participants
        #expect(present == [Participant(user: "carol", client: "c1", role: .host, data: ["name": "Carol"])])
        try await backend.delete("lobby")
        await carol.stop()
        await #expect { _ = try await backend.room("lobby") } throws: { error in
            if case RoomsClientError.notFound = error { true } else { false }
        }
        await server.shutdown()
    }
}
