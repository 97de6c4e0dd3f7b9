import TandemTesting
import Testing
import TandemKit

@Suite struct FeedbackQueueTests {
    @Test func showReturnsOnlyAfterTheDismissalAnimationHasFinished() async {
        let (clock, presenter, queue) = makeFeedbackQueue()
        let outcomes = OutcomeLog()
        queue.enqueue(.success("Saved"), completion: outcomes.record("saved"))

        await clock.waitForSleepers(1)  // displayed, display timer running
        #expect(presenter.log == ["present Saved"])
        clock.advance(by: .milliseconds(1499))
        #expect(outcomes.all.isEmpty)
        clock.advance(by: .milliseconds(1))
        await clock.waitForSleepers(1)  // fading out
        #expect(presenter.log == ["present Saved", "fade Saved"])
        #expect(outcomes.all.isEmpty, "completion fired while the toast was still fading out")
        clock.advance(by: .milliseconds(250))
        while !queue.isIdle { await Task.yield() }
        #expect(outcomes.all == ["saved: expired"])
        #expect(presenter.log == ["present Saved", "fade Saved", "gone Saved"])
    }

    @Test func reloadHappensOnlyAfterTheSuccessToastHasDisappeared() async {
        // The article's flow: change user info → success toast → only after it has gone, reload.
        let (clock, presenter, queue) = makeFeedbackQueue()
        let screen = Task {
            presenter.note("update user info")
            await queue.show(.success("Profile updated"))
            presenter.note("reload user info")
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(1500))
        await clock.waitForSleepers(1)
        #expect(!presenter.log.contains("reload user info"))
        clock.advance(by: .milliseconds(250))
        await screen.value
        #expect(presenter.log == [
            "update user info", "present Profile updated", "fade Profile updated", "gone Profile updated", "reload user info",
        ])
    }

    @Test func aLoadingHUDReplacedByASuccessToastCompletesExactlyOnce() async {
        let (clock, presenter, queue) = makeFeedbackQueue()
        let outcomes = OutcomeLog()
        queue.enqueue(.loading("Submitting…"), completion: outcomes.record("loading"))
        while !presenter.log.contains("present Submitting…") { await Task.yield() }
        // A loading HUD has no timer: time passing does not end it.
        clock.advance(by: .seconds(60))
        #expect(presenter.log == ["present Submitting…"])

        let success = Task { await queue.show(.success("Submitted")) }
        await clock.waitForSleepers(1)  // the HUD fading out
        #expect(presenter.log == ["present Submitting…", "fade Submitting…"])
        #expect(outcomes.all.isEmpty)
        clock.advance(by: .milliseconds(250))
        await clock.waitForSleepers(1)  // success toast displayed
        #expect(outcomes.all == ["loading: replaced"])
        clock.advance(by: .milliseconds(1500))
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(250))
        #expect(await success.value == .expired)
        #expect(outcomes.all == ["loading: replaced"])
        #expect(presenter.log.suffix(3) == ["present Submitted", "fade Submitted", "gone Submitted"])
    }

    @Test func identicalMessagesBackToBackAreShownOnceAndCompleteEveryCaller() async {
        let (clock, presenter, queue) = makeFeedbackQueue(fadeOut: .zero)
        let outcomes = OutcomeLog()
        let first = queue.enqueue(.info("Copied"), completion: outcomes.record("first"))
        let second = queue.enqueue(.info("Copied"), completion: outcomes.record("second"))
        let other = queue.enqueue(.info("Pasted"), completion: outcomes.record("other"))
        let third = queue.enqueue(.info("Copied"), completion: outcomes.record("third"))
        #expect(first == second)
        #expect(third != first, "not back to back with the first: \"Pasted\" sits between them")
        #expect(other != first)
        for _ in 0..<3 {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(2))
        }
        while !queue.isIdle { await Task.yield() }
        #expect(presenter.log.filter { $0.hasPrefix("present") } == ["present Copied", "present Pasted", "present Copied"])
        #expect(outcomes.all == ["first: expired", "second: expired", "other: expired", "third: expired"])
    }

    @Test func aMessageIdenticalToTheVisibleOneJoinsIt() async {
        let (clock, presenter, queue) = makeFeedbackQueue()
        let outcomes = OutcomeLog()
        let first = queue.enqueue(.success("Saved"), completion: outcomes.record("first"))
        await clock.waitForSleepers(1)
        #expect(queue.enqueue(.success("Saved"), completion: outcomes.record("second")) == first)
        clock.advance(by: .milliseconds(1500))
        await clock.waitForSleepers(1)
        // Once the toast fades, an identical message is a new one: it must not complete early.
        let late = queue.enqueue(.success("Saved"), completion: outcomes.record("late"))
        #expect(late != first)
        clock.advance(by: .milliseconds(250))
        await clock.waitForSleepers(1)
        #expect(outcomes.all == ["first: expired", "second: expired"])
        clock.advance(by: .milliseconds(1500))
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(250))
        while !queue.isIdle { await Task.yield() }
        #expect(outcomes.all == ["first: expired", "second: expired", "late: expired"])
        #expect(presenter.log.filter { $0.hasPrefix("present") }.count == 2)
    }

    @Test func anErrorJumpsAheadOfWaitingMessagesButDoesNotCutTheVisibleOneShort() async {
        let (clock, presenter, queue) = makeFeedbackQueue(fadeOut: .zero)
        queue.enqueue(.info("One"))
        await clock.waitForSleepers(1)
        queue.enqueue(.info("Two"))
        queue.enqueue(.info("Three"))
        queue.enqueue(.error("Upload failed"))
        #expect(queue.waitingCount == 3)
        clock.advance(by: .milliseconds(1999))
        #expect(presenter.log == ["present One"])
        clock.advance(by: .milliseconds(1))
        for _ in 0..<3 {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(3))
        }
        while !queue.isIdle { await Task.yield() }
        #expect(presenter.log.filter { $0.hasPrefix("present") } == ["present One", "present Upload failed", "present Two", "present Three"])
    }

    @Test func dismissingEndsTheVisibleMessageEarlyAndWithdrawsAWaitingOne() async {
        let (clock, presenter, queue) = makeFeedbackQueue(fadeOut: .zero)
        let outcomes = OutcomeLog()
        let visible = queue.enqueue(.info("Visible"), completion: outcomes.record("visible"))
        await clock.waitForSleepers(1)
        let waiting = queue.enqueue(.info("Waiting"), completion: outcomes.record("waiting"))
        queue.dismiss(waiting)
        #expect(outcomes.all == ["waiting: discarded"])
        queue.dismiss(visible)
        while !queue.isIdle { await Task.yield() }
        #expect(outcomes.all == ["waiting: discarded", "visible: dismissed"])
        #expect(!presenter.log.contains("present Waiting"))
        // Dismissing a finished ticket changes nothing and completes nobody twice.
        queue.dismiss(visible)
        queue.dismiss(waiting)
        #expect(outcomes.all.count == 2)
        #expect(clock.sleeperCount == 0, "the display timer must be cancelled")
    }

    @Test func aMessageCanNameItsOwnDuration() async {
        let clock = ManualClock()
        let presenter = RecordingPresenter(clock: clock, fadeOut: .zero)
        let queue = FeedbackQueue(presenter: presenter, clock: clock, timings: FeedbackTimings(success: .seconds(9)))
        let shown = Task { await queue.show(.success("Quick", duration: .milliseconds(300))) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(300))
        #expect(await shown.value == .expired)
        #expect(FeedbackTimings.standard.displayDuration(for: .loading("…")) == nil)
        #expect(FeedbackTimings.standard.displayDuration(for: .error("x")) == .milliseconds(2500))
        #expect(FeedbackTimings.standard.displayDuration(for: .info("x", duration: .seconds(-1))) == .zero)
    }

    @Test func aLoadingHUDWithASuccessorAlreadyWaitingIsNeverFlashed() async {
        let (clock, presenter, queue) = makeFeedbackQueue(fadeOut: .zero)
        let outcomes = OutcomeLog()
        queue.enqueue(.info("Busy"))
        await clock.waitForSleepers(1)
        queue.enqueue(.loading("Loading"), completion: outcomes.record("loading"))
        queue.enqueue(.success("Done"), completion: outcomes.record("done"))
        clock.advance(by: .seconds(2))
        await clock.waitForSleepers(1)
        #expect(outcomes.all == ["loading: replaced"])
        clock.advance(by: .seconds(2))
        while !queue.isIdle { await Task.yield() }
        #expect(!presenter.log.contains("present Loading"))
        #expect(outcomes.all == ["loading: replaced", "done: expired"])
    }

    @Test func aWaitingLoadingHUDOvertakenByANewerErrorNeverAppearsAfterIt() async {
        // "Submitting…" waits behind a visible toast; the submission fails and its error jumps
        // ahead of the HUD. Once the error is gone the HUD must not come up (it would stay forever).
        let (clock, presenter, queue) = makeFeedbackQueue(fadeOut: .zero)
        let outcomes = OutcomeLog()
        queue.enqueue(.info("Cart saved"))
        await clock.waitForSleepers(1)
        queue.enqueue(.loading("Submitting…"), completion: outcomes.record("loading"))
        queue.enqueue(.error("Card declined"), completion: outcomes.record("error"))
        #expect(queue.waitingCount == 2)
        clock.advance(by: .seconds(2))
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(2500))
        await settle("the queue to drain") { queue.isIdle }
        #expect(presenter.log.filter { $0.hasPrefix("present") } == ["present Cart saved", "present Card declined"])
        #expect(outcomes.all == ["error: expired", "loading: replaced"])
    }

    @Test func concurrentCallersEachCompleteExactlyOnceWithOneMessageVisibleAtATime() async {
        let (_, presenter, queue) = makeFeedbackQueue(fadeOut: .zero)
        let outcomes = await withTaskGroup(of: FeedbackOutcome.self) { group in
            for index in 0..<64 {
                group.addTask { await queue.show(.info("Message \(index % 16)", duration: .zero)) }
            }
            var collected: [FeedbackOutcome] = []
            for await outcome in group { collected.append(outcome) }
            return collected
        }
        #expect(outcomes.count == 64)
        #expect(outcomes.allSatisfy { $0 == .expired })
        #expect(presenter.maxVisible == 1)
        let presented = presenter.log.filter { $0.hasPrefix("present") }.count
        #expect(presented >= 16 && presented <= 64)
        #expect(queue.isIdle)
    }

    @Test func dismissAllClearsTheQueueAndCompletesEveryCaller() async {
        let (clock, presenter, queue) = makeFeedbackQueue(fadeOut: .zero)
        let outcomes = OutcomeLog()
        queue.enqueue(.info("Syncing"), completion: outcomes.record("visible"))
        await clock.waitForSleepers(1)
        queue.enqueue(.info("Later"), completion: outcomes.record("waiting"))
        queue.enqueue(.error("Failed"), completion: outcomes.record("error"))
        queue.dismissAll()
        while !queue.isIdle { await Task.yield() }
        #expect(outcomes.all == ["error: discarded", "waiting: discarded", "visible: dismissed"], "queue order: the error had jumped ahead")
        #expect(presenter.log.filter { $0.hasPrefix("present") } == ["present Syncing"])
        #expect(clock.sleeperCount == 0)
    }
}
