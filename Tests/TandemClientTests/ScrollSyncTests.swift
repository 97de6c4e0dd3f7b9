import Foundation
import Testing
import TandemKit
import TandemProtocol
@testable import TandemClient

/// The article's scroll pitfalls with fake scroll views and an injected clock: nested views, tab
/// switches, echoes of applied remote offsets.
@Suite struct ScrollSyncTests {
    enum Tab: Hashable, Sendable { case details, reviews }

    /// A controller whose reports land in `sent`, on a clock the test moves.
    final class Harness {
        var sent: [ContentOffset] = []
        var clock: Int64 = 0
        lazy var sync = ScrollSync<Tab, String>(activeTab: .details, now: { [unowned self] in self.clock }) { [unowned self] in
            self.sent.append($0)
        }
    }

    @Test func onlyTheActiveTabsPrimaryReports() {
        let harness = Harness()
        let sync = harness.sync
        sync.register("details-list", tab: .details)
        sync.register("reviews-list", tab: .reviews)
        sync.register("carousel", tab: .details, role: .nested)
        sync.sourceDidScroll("details-list", offset: ContentOffset(x: 0, y: 10))
        sync.sourceDidScroll("carousel", offset: ContentOffset(x: 300, y: 0))
        sync.sourceDidScroll("reviews-list", offset: ContentOffset(x: 0, y: 99))
        #expect(harness.sent == [ContentOffset(x: 0, y: 10)])

        // Switching tabs: the old tab's late callbacks (deceleration) are dropped at once.
        sync.activate(.reviews)
        sync.sourceDidScroll("details-list", offset: ContentOffset(x: 0, y: 20))
        sync.sourceDidScroll("reviews-list", offset: ContentOffset(x: 0, y: 40))
        #expect(harness.sent == [ContentOffset(x: 0, y: 10), ContentOffset(x: 0, y: 40)])

        // A reloaded list replaces the tab's primary; a nested view never becomes one.
        sync.register("reviews-list-2", tab: .reviews)
        sync.sourceDidScroll("reviews-list", offset: ContentOffset(x: 0, y: 50))
        sync.sourceDidScroll("reviews-list-2", offset: ContentOffset(x: 0, y: 60))
        #expect(harness.sent.last == ContentOffset(x: 0, y: 60) && harness.sent.count == 3)
    }

    @Test func anAppliedRemoteOffsetIsNotEchoed() {
        let harness = Harness()
        let sync = harness.sync
        sync.register("list", tab: .details)
        var scrolled: [(String, ContentOffset)] = []
        // The view reports the programmatic move synchronously (UIKit does), and once more a little later.
        let applied = sync.applyRemote(ContentOffset(x: 0, y: 400)) { source, offset in
            scrolled.append((source, offset))
            sync.sourceDidScroll(source, offset: offset)
        }
        #expect(applied && scrolled.count == 1 && scrolled[0].0 == "list")
        harness.clock += 100_000_000
        sync.sourceDidScroll("list", offset: ContentOffset(x: 0, y: 400.3))
        #expect(harness.sent == [], "echoes are not local changes")

        // The user then scrolls: that is reported.
        sync.sourceDidScroll("list", offset: ContentOffset(x: 0, y: 380))
        #expect(harness.sent == [ContentOffset(x: 0, y: 380)])
        // Within the echo window a report near the applied offset is its echo; after it, a real move.
        _ = sync.applyRemote(ContentOffset(x: 0, y: 200)) { _, _ in }
        harness.clock += 100_000_000
        sync.sourceDidScroll("list", offset: ContentOffset(x: 0, y: 200.3))
        #expect(harness.sent.count == 1)
        harness.clock += 600_000_000
        sync.sourceDidScroll("list", offset: ContentOffset(x: 0, y: 200.4))
        #expect(harness.sent.last == ContentOffset(x: 0, y: 200.4))
        // The offset the room already has is not sent again.
        sync.sourceDidScroll("list", offset: ContentOffset(x: 0, y: 200.4))
        #expect(harness.sent.count == 2)
    }

    @Test func applyingNeedsAPrimaryAndSkipsAViewAlreadyThere() {
        let harness = Harness()
        let sync = harness.sync
        #expect(!sync.applyRemote(ContentOffset(x: 0, y: 1)) { _, _ in Issue.record("no view to scroll") })
        sync.register("list", tab: .details)
        #expect(!sync.applyRemote(ContentOffset(x: 0, y: 1), current: ContentOffset(x: 0, y: 1.2)) { _, _ in Issue.record("already there") })
    }

    @Test func theOffsetCodesAsAnObjectOnEveryPlatform() throws {
        let json = try JSONValueEncoder().encode(ContentOffset(x: 1.5, y: 2))
        #expect(json == ["x": 1.5, "y": 2])
        #expect(try JSONValueDecoder().decode(ContentOffset.self, from: ["x": 0, "y": 120]) == ContentOffset(x: 0, y: 120))
    }

    @Test func aFollowerGlidesThroughRemoteOffsetsWithoutEchoingThemAndRestsOnTheLast() {
        let harness = Harness()
        let sync = harness.sync
        sync.register("list", tab: .details)
        var view = ContentOffset.zero
        func frame() -> Bool {
            sync.followFrame(current: view) { _, offset in
                view = offset
                sync.sourceDidScroll("list", offset: offset)   // the view reports the programmatic move
            }
        }
        // Offsets every 16 ms: the view moves a little behind them, between received values only.
        for step in 0...6 {
            sync.receiveRemote(ContentOffset(x: 0, y: Double(step) * 10))
            sync.receiveRemote(ContentOffset(x: 0, y: Double(step) * 10))   // a state change that did not move it
            _ = frame()
            harness.clock += 16_000_000
        }
        #expect(view.y > 20 && view.y < 60, "a little behind the newest (60): \(view.y)")
        var frames = 0
        while frame() { harness.clock += 8_000_000; frames += 1 }
        #expect(view == ContentOffset(x: 0, y: 60), "it rests exactly on the newest")
        #expect(frames >= 1 && frames < 20, "it glides the rest of the way: \(frames) frames")
        #expect(!frame(), "nothing more to do until the next offset")
        #expect(harness.sent.isEmpty, "no move of the follower went back to the room")
    }

    @Test func theUsersFingerAndATabSwitchStopTheFollowing() {
        let harness = Harness()
        let sync = harness.sync
        sync.register("list", tab: .details)
        sync.register("reviews", tab: .reviews)
        var moves: [ContentOffset] = []
        for step in 0...3 {
            sync.receiveRemote(ContentOffset(x: 0, y: Double(step) * 10))
            harness.clock += 16_000_000
        }
        // The user drags: the remote path is dropped, the drag is shared.
        sync.sourceDidScroll("list", offset: ContentOffset(x: 0, y: 500))
        #expect(harness.sent == [ContentOffset(x: 0, y: 500)])
        let following = sync.followFrame(current: ContentOffset(x: 0, y: 500)) { _, offset in moves.append(offset) }
        #expect(!following)
        #expect(moves.isEmpty)
        // Another tab: the next remote offset is shown at once, on that tab's list.
        sync.receiveRemote(ContentOffset(x: 0, y: 20))
        sync.activate(.reviews)
        sync.receiveRemote(ContentOffset(x: 0, y: 300))
        var sources: [String] = []
        let moving = sync.followFrame { source, offset in moves.append(offset); sources.append(source) }
        #expect(!moving)
        #expect(moves == [ContentOffset(x: 0, y: 300)] && sources == ["reviews"])
    }
}
