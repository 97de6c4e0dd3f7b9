import Testing
@testable import TandemClient

@Suite struct PrimaryScrollFilterTests {
    enum Tab: Hashable, Sendable { case details, reviews }
    typealias Filter = PrimaryScrollFilter<Tab, String>

    @Test func onlyThePrimarySourceOfTheActiveTabReports() {
        var filter = Filter(activeTab: .details)
        filter.registerPrimary("detailsList", tab: .details)
        filter.registerPrimary("reviewsGrid", tab: .reviews)
        #expect(filter.filter(100.0, from: "detailsList") == 100)
        #expect(filter.filter(100.0, from: "reviewsGrid") == nil)
        #expect(filter.filter(100.0, from: "cellCarousel") == nil, "a nested scroll view inside a cell never reports")
    }

    @Test func switchingTabsSilencesThePreviousTabsList() {
        var filter = Filter(activeTab: .details)
        filter.registerPrimary("detailsList", tab: .details)
        filter.registerPrimary("reviewsGrid", tab: .reviews)
        filter.activate(.reviews)
        // The details list may still be decelerating after the switch: its offsets are dropped.
        #expect(!filter.shouldReport("detailsList"))
        #expect(filter.shouldReport("reviewsGrid"))
    }

    @Test func nothingReportsBeforeATabIsActive() {
        var filter = Filter()
        filter.registerPrimary("detailsList", tab: .details)
        #expect(!filter.shouldReport("detailsList"))
    }

    @Test func reRegisteringReplacesThePrimaryAndUnregisterForgets() {
        var filter = Filter(activeTab: .details)
        filter.registerPrimary("old", tab: .details)
        filter.registerPrimary("new", tab: .details)
        #expect(!filter.shouldReport("old") && filter.shouldReport("new"))
        filter.unregister("old") // already replaced: must not remove the new primary
        #expect(filter.primary(of: .details) == "new")
        filter.unregister("new")
        #expect(filter.primary(of: .details) == nil && !filter.shouldReport("new"))
    }

    @Test func movingASourceToAnotherTabLeavesTheFirst() {
        var filter = Filter(activeTab: .details)
        filter.registerPrimary("list", tab: .details)
        filter.registerPrimary("list", tab: .reviews)
        #expect(filter.primary(of: .details) == nil)
        #expect(!filter.shouldReport("list"))
        filter.activate(.reviews)
        #expect(filter.shouldReport("list"))
    }
}
