import Testing
import TandemKit
import TandemProtocol
@testable import TandemClient

/// The guide's page model (docs/CLIENT.md, compiled in `GuideSnippets`) run against a real server: the tab
/// just left keeps decelerating after a switch, and none of its offsets is shared (the article's first pitfall).
@Suite struct SeedPageTests {
    @Test @MainActor func theTabJustLeftNeverSharesItsOffsets() async throws {
        let harness = try SessionTestServer.start()
        let (session, _) = harness.session(user: "alice", client: "a1")
        let (observer, _) = harness.session(user: "bob", client: "b1")
        let log = StreamLog(observer.events)
        await observer.start()
        let model = try SeedPage.ProductPageModel(session: session, toasts: FeedbackModel())
        await model.room.start()
        #expect(await eventuallyOnMain { model.room.status.connection == .connected })
        model.listDidScroll(tab: 0, offset: ContentOffset(x: 0, y: 120))
        model.selectTab(1)
        // The details list is still decelerating after the switch; then the reviews list scrolls.
        // Each frame's offset is let settle (sent and confirmed, when it is sent at all) before the next, so
        // no coalescing hides one.
        for y in stride(from: 130.0, through: 400.0, by: 30) {
            model.listDidScroll(tab: 0, offset: ContentOffset(x: 0, y: y))
            #expect(await model.room.settled(timeout: .seconds(10)))
        }
        model.listDidScroll(tab: 1, offset: ContentOffset(x: 0, y: 35))
        #expect(await model.room.settled(timeout: .seconds(10)))
        #expect(await eventuallyOnMain { log.all.contains { if case .stateChanged(let snapshot) = $0 { snapshot.state["contentOffset"]?["y"] == 35 } else { false } } })
        // Every offset the other participant ever saw.
        let offsets = log.all.compactMap { event -> Double? in
            guard case .stateChanged(let snapshot) = event else { return nil }
            return snapshot.state["contentOffset"]?["y"]?.doubleValue
        }
        #expect(offsets.contains(120))
        #expect(offsets.allSatisfy { $0 == 0 || $0 == 120 || $0 == 35 }, "no offset of the tab just left was shared: \(offsets)")
        #expect(model.room.state.contentOffset == ContentOffset(x: 0, y: 35) && model.room.state.tabIndex == 1)
        await model.room.stop()
        await observer.stop()
        await harness.shutdown()
    }
}
