import TandemClient

/// The cart button as the state-driven article builds it: an optimistic store action with rollback,
/// and a toast whose disappearance triggers the page refresh (a reducer rule on `toastDidHide`).
enum Cart {
    struct State: Equatable, Sendable {
        var selected = false
        var toast: FeedbackMessage?
        var refreshes = 0
    }

    enum Action: Equatable, Sendable {
        case tap
        case saved
        case failed(Rollback<State, Bool>, String)
        case toastDidHide(FeedbackMessage, FeedbackOutcome)
    }

    static func reducer(shop: Shop) -> Store<State, Action>.Reducer {
        { state, action in
            switch action {
            case .tap:
                return RemoteUpdate.optimistic(\State.selected, in: &state, apply: { $0.toggle() },
                                               request: { try await shop.addToCart() }, succeeded: .saved,
                                               failed: { .failed($0, "\($1)") })
            case .saved:
                state.toast = .success("Added to cart")
            case .failed(let rollback, let reason):
                rollback.restore(in: &state)
                state.toast = .error("Could not add to cart: \(reason)")
            case .toastDidHide(let message, _):
                if state.toast == message { state.toast = nil }
                if message.style == .error { state.refreshes += 1 }  // reload the page once the toast is gone
            }
            return .none
        }
    }
}
