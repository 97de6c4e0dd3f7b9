import Observation
import TandemKit

/// `FeedbackQueue`'s toasts as observable state for a declarative view (SwiftUI's `feedbackToasts`
/// modifier, or any view layer): the `item` on screen and the `phase` of its transition.
///
/// The queue completes a toast's callers when `dismiss` returns, so "after the toast, navigate" must
/// wait until the toast has really faded out. The view animates each transition and calls
/// `transitionFinished()` when its animation completes; a transition nobody reports finishes after
/// `fallback`, so a model without a view on screen never holds the queue up.
@MainActor @Observable
public final class FeedbackModel: FeedbackPresenter {
    /// Where the current toast is in its life.
    public enum Phase: Sendable, Hashable {
        /// Nothing on screen.
        case hidden
        /// `item` is fading in.
        case appearing
        /// `item` is fully visible.
        case visible
        /// `item` is fading out.
        case disappearing
    }

    /// The toast on screen (also while it fades in and out); nil when nothing is shown.
    public private(set) var item: FeedbackItem?
    /// The transition the view should show.
    public private(set) var phase: Phase = .hidden

    @ObservationIgnored private let fallback: Duration
    @ObservationIgnored private let clock: any Clock<Duration>
    @ObservationIgnored private var waiting: CheckedContinuation<Void, Never>?
    @ObservationIgnored private var transition = 0

    /// A model whose transitions end when the view reports them, or after `fallback` at the latest
    /// (measured on `clock`).
    public init(fallback: Duration = .seconds(1), clock: any Clock<Duration> = ContinuousClock()) {
        self.fallback = fallback
        self.clock = clock
    }

    /// Reports that the transition of `phase` has finished on screen (its animation's completion).
    public func transitionFinished() {
        let waiter = waiting
        waiting = nil
        waiter?.resume()
    }

    /// Fades `item` in; returns when the view reports it fully visible.
    nonisolated public func present(_ item: FeedbackItem) async {
        await run(.appearing, item: item, then: .visible)
    }

    /// Fades `item` out; returns when the view reports it gone.
    nonisolated public func dismiss(_ item: FeedbackItem) async {
        await run(.disappearing, item: item, then: .hidden)
    }

    private func run(_ start: Phase, item: FeedbackItem, then end: Phase) async {
        // The queue never overlaps its calls, so no transition waits here; one that did would end now.
        transitionFinished()
        self.item = item
        phase = start
        transition += 1
        let current = transition
        let clock = clock, fallback = fallback
        let alarm = Task { @MainActor [weak self] in
            try? await clock.sleep(for: fallback)
            if !Task.isCancelled, self?.transition == current { self?.transitionFinished() }
        }
        await withCheckedContinuation { waiting = $0 }
        alarm.cancel()
        phase = end
        if end == .hidden { self.item = nil }
    }
}
