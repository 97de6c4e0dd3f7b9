/// The articles' toast middleware: the state says which toast to show (`state.ui.toast`), this shows it
/// through a `FeedbackQueue`, and once it has fully disappeared sends `didHide` — so "after the toast,
/// navigate" is a plain reducer rule on that action, never a completion closure.
///
/// A toast is shown when the state's toast changes to a new message. Every shown toast gets exactly
/// one `didHide`, with its outcome: `.expired` or `.dismissed` after its fade-out, `.replaced` or
/// `.discarded` when a newer one took its place; the reducer usually clears the toast on it.
public enum ToastMiddleware {
    /// Middleware showing `toast(state)` through `queue` and sending `didHide(message, outcome)`.
    public static func make<State: Sendable, Action: Sendable>(
        queue: FeedbackQueue,
        toast: @escaping @Sendable (State) -> FeedbackMessage?,
        didHide: @escaping @Sendable (_ message: FeedbackMessage, _ outcome: FeedbackOutcome) -> Action
    ) -> Middleware<State, Action> {
        Middleware(didReduce: { _, old, new in
            guard let message = toast(new), toast(old) != message else { return .none }
            return .run { send in
                let outcome = await queue.show(message)
                send(didHide(message, outcome))
            }
        })
    }
}
