import Testing
import TandemClient
import TandemProtocol
import TandemProxy
import TandemTesting
import TandemWire

/// A session on a slow link changes a list that another participant changed a moment before: its patch
/// is made on an older rev, the server rebases it, and the session shows what it meant all along.
@Suite struct SyncSessionRebaseTests {
    private static func ops(_ text: String) throws -> [PatchOp] { try PatchOp.list(from: try JSONValue.parse(text)) }

    @Test func aRemovalMadeBehindTakesOutTheItemItsAuthorSaw() async throws {
        let server = try TestServer()
        let proxy = try FaultProxy.start(listenPort: 0, targetHost: "127.0.0.1", targetPort: server.server.port,
                                         faults: FaultProxy.Faults(latency: .milliseconds(400)), group: server.group)
        let token = server.token(user: "bob")
        let bob = SyncSession(url: "ws://127.0.0.1:\(proxy.port)/v1/sync", clientID: "bob-1", tokenProvider: { token },
                              configuration: TestServer.fastReconnects, transport: WireTransport(group: server.group))
        let backend = RoomsClient(baseURL: "http://127.0.0.1:\(server.server.port)", token: server.token(user: "alice"), group: server.group)
        try await backend.write("lobby", ops: try Self.ops(#"[{"op":"set","path":"/cart","value":["a","b","c"]}]"#))
        await bob.start()
        #expect(await eventually { await bob.snapshot.rev == 1 })

        // Alice takes out "a"; bob, 400 ms behind, takes out "c" where he sees it, at index 2.
        try await backend.write("lobby", ops: try Self.ops(#"[{"op":"remove","path":"/cart/0"}]"#))
        try await bob.apply(try Self.ops(#"[{"op":"remove","path":"/cart/2"}]"#))
        #expect(await bob.snapshot.state == ["cart": ["a", "b"]], "at once, on what bob sees")
        #expect(await eventually { let snapshot = await bob.snapshot; return snapshot.rev == 3 && snapshot.pending == 0 })
        #expect(await bob.snapshot.state == ["cart": ["b"]])
        #expect(try await backend.room("lobby").state == ["cart": ["b"]], "the server removed the item bob saw, not what sat at his index")
        await bob.stop()
        await proxy.shutdown()
        await server.shutdown()
    }
}
