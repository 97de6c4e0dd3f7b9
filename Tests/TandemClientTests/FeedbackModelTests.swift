import Testing
import TandemTesting
@testable import TandemClient

/// The observable toast model: a toast completes only when the view has faded it out, and a model no
/// view reports to still lets the queue go on.
@MainActor @Suite struct FeedbackModelTests {
    @Test func aToastCompletesOnlyAfterTheViewReportsItFadedOut() async throws {
        let model = FeedbackModel(fallback: .seconds(3600))
        let queue = FeedbackQueue(presenter: model, timings: FeedbackTimings(success: .milliseconds(1)))
        let shown = Task { await queue.show(.success("Added to cart")) }
        #expect(await eventuallyOnMain { model.phase == .appearing })
        #expect(model.item?.message.text == "Added to cart")
        model.transitionFinished()
        #expect(await eventuallyOnMain { model.phase == .disappearing })
        // Still fading out: the caller waits.
        try await Task.sleep(for: .milliseconds(20))
        #expect(model.item != nil)
        model.transitionFinished()
        _ = await shown.value
        #expect(model.phase == .hidden && model.item == nil)
    }

    @Test func aTransitionNobodyReportsEndsAfterTheFallback() async throws {
        let clock = ManualClock()
        let model = FeedbackModel(fallback: .milliseconds(300), clock: clock)
        let presented = Task { await model.present(FeedbackItem(ticket: FeedbackTicket(id: 1), message: .info("hi"), displayDuration: nil)) }
        #expect(await eventuallyOnMain { model.phase == .appearing && clock.sleeperCount == 1 })
        clock.advance(by: .milliseconds(299))
        try await Task.sleep(for: .milliseconds(10))
        #expect(model.phase == .appearing)
        clock.advance(by: .milliseconds(1))
        await presented.value
        #expect(model.phase == .visible)
    }
}
