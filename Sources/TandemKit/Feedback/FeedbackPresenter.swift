/// Draws toasts and HUDs: implemented by a UIKit, SwiftUI, terminal or web front end.
///
/// `FeedbackQueue` calls `present` and `dismiss` strictly alternately, for one item at a time,
/// never concurrently. Each call must return only when its animation has finished: the queue
/// completes a message's callers when `dismiss` returns, so returning early would let the app
/// continue (e.g. reload the screen) while the toast is still fading out.
public protocol FeedbackPresenter: Sendable {
    /// Shows `item`; returns when it is fully visible.
    func present(_ item: FeedbackItem) async
    /// Hides `item`; returns when the dismissal animation has finished.
    func dismiss(_ item: FeedbackItem) async
}
