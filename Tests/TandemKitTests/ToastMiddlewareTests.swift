import Testing
import TandemKit
import TandemKitTesting

/// The articles' toast middleware, step by step in a `TestStore` on a manual clock: the toast comes
/// from the state, `toastDidHide` only after it has faded out, exactly once per toast.
@Suite struct ToastMiddlewareTests {
    struct Page: Equatable, Sendable {
        var toast: FeedbackMessage?
        var screen = "cart"
    }

    enum Action: Equatable, Sendable {
        case placeOrder
        case placed
        case toastDidHide(FeedbackMessage, FeedbackOutcome)
    }

    /// Placing an order shows a loading HUD, then "Order placed"; once that toast is gone, navigate.
    static let reducer: Store<Page, Action>.Reducer = { state, action in
        switch action {
        case .placeOrder: state.toast = .loading("Placing…")
        case .placed: state.toast = .success("Order placed")
        case .toastDidHide(let message, _):
            if state.toast == message { state.toast = nil }
            if message.style == .success { state.screen = "orders" }
        }
        return .none
    }

    @Test func navigationWaitsForTheToastToDisappearAndEveryToastEndsOnce() async {
        let (clock, presenter, queue) = makeFeedbackQueue(fadeOut: .milliseconds(250))
        let middleware: Middleware<Page, Action> = ToastMiddleware.make(queue: queue, toast: { $0.toast }, didHide: { .toastDidHide($0, $1) })
        let store = TestStore(initialState: Page(), reducer: middleware.around(Self.reducer), timeout: .seconds(10))

        await store.send(.placeOrder) { $0.toast = .loading("Placing…") }
        await settle("the HUD is up") { presenter.log == ["present Placing…"] }
        // The result replaces the HUD: the HUD ends with `.replaced`, then the toast shows.
        await store.send(.placed) { $0.toast = .success("Order placed") }
        await settle("the HUD fades") { presenter.log.last == "fade Placing…" }
        clock.advance(by: .milliseconds(250))
        await store.receive(.toastDidHide(.loading("Placing…"), .replaced))
        await settle("the toast is up") { presenter.log.last == "present Order placed" }
        // Still on the cart while the toast is visible and while it fades.
        #expect(store.state.screen == "cart")
        clock.advance(by: .milliseconds(1500))
        await settle("fading") { presenter.log.last == "fade Order placed" }
        #expect(store.state.screen == "cart")
        clock.advance(by: .milliseconds(250))
        await store.receive(.toastDidHide(.success("Order placed"), .expired)) {
            $0.toast = nil
            $0.screen = "orders"
        }
        await store.finish()
    }

    @Test func theSameToastSetAgainIsNotShownTwice() async {
        let (clock, presenter, queue) = makeFeedbackQueue(fadeOut: .zero)
        let middleware: Middleware<Page, Action> = ToastMiddleware.make(queue: queue, toast: { $0.toast }, didHide: { .toastDidHide($0, $1) })
        let store = TestStore(initialState: Page(), reducer: middleware.around(Self.reducer), timeout: .seconds(10))
        await store.send(.placed) { $0.toast = .success("Order placed") }
        await store.send(.placed)  // no change of the state's toast: nothing new to show
        await settle("shown") { presenter.log == ["present Order placed"] }
        clock.advance(by: .milliseconds(1500))
        await store.receive(.toastDidHide(.success("Order placed"), .expired)) {
            $0.toast = nil
            $0.screen = "orders"
        }
        #expect(presenter.log.filter { $0.hasPrefix("present") }.count == 1)
        await store.finish()
    }
}

/// The update strategies as middleware: the reducer changes state, the middleware runs the request.
@Suite struct RemoteUpdateMiddlewareTests {
    struct Profile: Equatable, Sendable {
        var following = false
        var name = "Ann"
        var loaded = 0
    }

    enum Action: Equatable, Sendable {
        case follow
        case followFailed(String)
        case rename(String)
        case renamed(String)
        case save
        case refetch
        case failed(String)
    }

    struct Offline: Error {}

    @Test func optimisticRollsBackTheSliceOnFailure() async {
        let middleware: Middleware<Profile, Action> = RemoteUpdateMiddleware.optimistic(
            \Profile.following,
            request: { action in
                guard action == .follow else { return nil }
                return { @Sendable in throw Offline() }
            },
            failed: { rollback, _ in .followFailed("\(rollback.previousValue)") })
        let store = TestStore(initialState: Profile(), reducer: middleware.around { state, action in
            switch action {
            case .follow: state.following = true
            case .followFailed(let previous): state.following = previous == "true"
            default: break
            }
            return .none
        }, timeout: .seconds(10))
        await store.send(.follow) { $0.following = true }
        await store.receive(.followFailed("false")) { $0.following = false }
        await store.finish()
    }

    @Test func pessimisticAppliesTheResponseAndForceSyncRefetches() async {
        let pessimistic: Middleware<Profile, Action> = RemoteUpdateMiddleware.pessimistic(
            request: { action in
                guard case .rename(let name) = action else { return nil }
                return { @Sendable in name.uppercased() }
            },
            succeeded: { .renamed($0) }, failed: { _ in .failed("rename") })
        let force: Middleware<Profile, Action> = RemoteUpdateMiddleware.forceSync(
            request: { action in
                guard action == .save else { return nil }
                return { @Sendable in }
            }, refetch: .refetch, failed: { _ in .failed("save") })
        let reducer: Store<Profile, Action>.Reducer = { state, action in
            switch action {
            case .renamed(let name): state.name = name
            case .refetch: state.loaded += 1
            default: break
            }
            return .none
        }
        let store = TestStore(initialState: Profile(), reducer: force.around(pessimistic.around(reducer)), timeout: .seconds(10))
        await store.send(.rename("bo"))
        await store.receive(.renamed("BO")) { $0.name = "BO" }
        await store.send(.save)
        await store.receive(.refetch) { $0.loaded = 1 }
        await store.finish()
    }
}
