import Testing
import TandemClient
import TandemTesting

/// The common case needs one import: this file imports `TandemClient` only, and uses the protocol's,
/// the kit's and the transport's types through it.
@MainActor @Suite struct OneImportTests {
    struct Page: Codable, Equatable, Sendable {
        var tabIndex = 0
    }

    struct Presence: Codable, Equatable, Sendable {
        var name: String
    }

    @Test func aRoomIsWiredWithTandemClientAlone() async throws {
        let value: JSONValue = ["tabIndex": 1]
        let op = PatchOp.set(JSONPointer(tokens: ["tabIndex"]), 2)
        let tls = TLSConfiguration.client(additionalTrustRoots: [])
        let session = SyncSession(url: "ws://example.test/v1/sync", clientID: "a1", tokenProvider: { "t" },
                                  transport: InMemoryTransport())
        let room = try SharedRoom(session: session, initialState: Page(), presence: Presence.self)
        let store = Store(initialState: 0) { (state: inout Int, _: Int) -> Effect<Int> in
            state += 1
            return .none
        }
        store.send(1)
        #expect(value["tabIndex"] == 1 && op.path.tokens == ["tabIndex"] && tls.trustsSystemRoots && store.state == 1)
        #expect(room.state == Page() && room.status.connection == .connecting)
    }
}
