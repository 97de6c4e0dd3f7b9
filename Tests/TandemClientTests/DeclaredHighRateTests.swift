import Testing
import TandemProtocol
@testable import TandemClient

/// An app whose state keeps its scroll offset under another name than `contentOffset` declares it through
/// `ScrollSync(room:offset:)`: the session paces it newest-wins, as it does `/contentOffset`.
@Suite struct DeclaredHighRateTests {
    struct Page: Codable, Equatable, Sendable {
        var tab = 0
        var scroll = Scroll()
        struct Scroll: Codable, Equatable, Sendable {
            var position = ContentOffset.zero
        }
    }

    @Test @MainActor func scrollSyncDeclaresTheOffsetItShares() async throws {
        let harness = try SessionTestServer.start()
        let (session, _) = harness.session(user: "alice", client: "a1")
        let room = try SharedRoom(session: session, initialState: Page(), presence: JSONValue.self)
        let scroll = ScrollSync<Int, String>(room: room, offset: \.scroll.position, activeTab: 0)
        scroll.register("list", tab: 0)
        await room.start()
        #expect(await eventuallyOnMain { room.status.connection == .connected })
        #expect(await eventuallyOnMain { await session.highRatePaths.contains(JSONPointer(tokens: ["scroll", "position"])) })
        #expect(room.declareHighRate(\.scroll.position))
        await room.stop()
        await harness.shutdown()
    }
}
