import Synchronization
import TandemKit
import TandemKitTesting
import TandemTesting
import Testing

/// The order-submission flow (see `StateMachineOrderSubmissionExampleTests`) as a store feature
/// that drives the feedback queue: submit → "Placing order…" HUD → success toast → only after the
/// toast has disappeared, count down and navigate; a failure shows an error toast that jumps the
/// queue, and retry is offered only once it has gone.
struct OrderScreen: Equatable, Sendable {
    typealias Machine = StateMachine<OrderSubmissionState, OrderSubmissionEvent>

    enum Action: Equatable, Sendable {
        case submitTapped
        case submitSucceeded(message: String)
        case submitFailed(reason: String)
        case toastDismissed
        case errorToastDismissed
        case tick
        case retryTapped
    }

    /// What the feature needs from outside; tests inject fakes.
    struct Environment: Sendable {
        var placeOrder: @Sendable () async throws -> String
        var feedback: FeedbackQueue
        var clock: any Clock<Duration>
    }

    enum EffectKey: Hashable, Sendable {
        case submission
        case countdown
    }

    struct Declined: Error, CustomStringConvertible {
        var description: String
    }

    /// The table's entry actions only log, so one shared throwaway log keeps the reducer pure enough.
    static let table = OrderSubmission.table(log: FlowLog())

    var submission = Machine(initial: .idle, table: OrderScreen.table)
    /// The retry button is enabled only after the error toast has gone.
    var retryEnabled = false

    static func reducer(_ environment: Environment) -> Store<OrderScreen, Action>.Reducer {
        { state, action in
            switch action {
            case .submitTapped:
                // A second tap while submitting (or after success) is refused by the machine: no request.
                guard (try? state.submission.handle(.submit)) != nil else { return .none }
                return submit(environment)
            case .retryTapped:
                guard state.retryEnabled, (try? state.submission.handle(.retry)) != nil else { return .none }
                state.retryEnabled = false
                return submit(environment)
            case .submitSucceeded(let message):
                guard (try? state.submission.handle(.submitSucceeded(message: message))) != nil else { return .none }
                return .run { send in
                    // Replaces the loading HUD; returns only after the toast's fade-out has finished.
                    await environment.feedback.show(.success(message))
                    send(.toastDismissed)
                }
            case .submitFailed(let reason):
                guard (try? state.submission.handle(.submitFailed(reason: reason))) != nil else { return .none }
                return .run { send in
                    await environment.feedback.show(.error(reason))
                    send(.errorToastDismissed)
                }
            case .errorToastDismissed:
                state.retryEnabled = true
                return .none
            case .toastDismissed:
                guard case .navigating(let countdown) = (try? state.submission.handle(.toastDismissed)) else { return .none }
                return .run { [clock = environment.clock] send in
                    for _ in 0..<countdown {
                        try await clock.sleep(for: .seconds(1))
                        send(.tick)
                    }
                } catch: { _, _ in }
                .cancellable(id: EffectKey.countdown)
            case .tick:
                _ = try? state.submission.handle(.tick)
                return .none
            }
        }
    }

    private static func submit(_ environment: Environment) -> Effect<Action> {
        .run { send in
            environment.feedback.enqueue(.loading("Placing order…"))
            do {
                send(.submitSucceeded(message: try await environment.placeOrder()))
            } catch {
                send(.submitFailed(reason: "\(error)"))
            }
        }
        .cancellable(id: EffectKey.submission)
    }
}

/// A fake order endpoint that answers after `latency` of manual-clock time and counts requests.
private final class FakeOrderAPI: Sendable {
    private let answers: Mutex<[Result<String, OrderScreen.Declined>]>
    private let count = Mutex(0)
    private let clock: ManualClock
    private let latency: Duration

    init(clock: ManualClock, latency: Duration = .milliseconds(800), answers: [Result<String, OrderScreen.Declined>]) {
        self.clock = clock
        self.latency = latency
        self.answers = Mutex(answers)
    }

    var requests: Int { count.withLock { $0 } }

    func placeOrder() async throws -> String {
        count.withLock { $0 += 1 }
        try await clock.sleep(for: latency)
        return try answers.withLock { $0.removeFirst() }.get()
    }
}

@Suite struct FeedbackOrderSubmissionExampleTests {
    private struct Harness {
        let clock = ManualClock()
        let presenter: RecordingPresenter
        let queue: FeedbackQueue
        let api: FakeOrderAPI
        let store: TestStore<OrderScreen, OrderScreen.Action>

        init(answers: [Result<String, OrderScreen.Declined>]) {
            presenter = RecordingPresenter(clock: clock, fadeOut: .milliseconds(250))
            queue = FeedbackQueue(presenter: presenter, clock: clock)
            let api = FakeOrderAPI(clock: clock, answers: answers)
            self.api = api
            let environment = OrderScreen.Environment(placeOrder: { try await api.placeOrder() }, feedback: queue, clock: clock)
            // The store's receive timeout runs on real time (generous); the feature's time is manual.
            store = TestStore(initialState: OrderScreen(), reducer: OrderScreen.reducer(environment), timeout: .seconds(30))
        }

        var shown: [String] { presenter.log.filter { $0.hasPrefix("present") } }

        /// Lets the next sleeper (display timer, fade-out, request, countdown) reach the clock, then
        /// moves time past it.
        func elapse(_ duration: Duration) async {
            await clock.waitForSleepers(1)
            clock.advance(by: duration)
        }
    }

    @Test func successShowsTheHUDThenTheToastAndNavigatesOnlyAfterTheToastHasGone() async throws {
        let app = Harness(answers: [.success("Order placed")])
        await app.store.send(.submitTapped) { try $0.submission.handle(.submit) }
        await settle("the loading HUD") { app.shown == ["present Placing order…"] }
        await app.elapse(.milliseconds(800))  // the request
        await app.store.receive(.submitSucceeded(message: "Order placed")) {
            try $0.submission.handle(.submitSucceeded(message: "Order placed"))
        }
        await app.elapse(.milliseconds(250))  // the HUD fades out, replaced by the toast
        await app.elapse(.milliseconds(1500))  // the toast's display time
        await app.clock.waitForSleepers(1)  // the toast is fading out
        #expect(app.store.pendingActions.isEmpty, "navigation must wait until the toast has disappeared")
        app.clock.advance(by: .milliseconds(250))
        await app.store.receive(.toastDismissed) { try $0.submission.handle(.toastDismissed) }
        #expect(app.store.state.submission.state == .navigating(countdown: 3))
        for _ in 0..<3 {
            await app.elapse(.seconds(1))
            await app.store.receive(.tick) { try $0.submission.handle(.tick) }
        }
        #expect(app.store.state.submission.state == .navigated)
        await app.store.finish()
        #expect(app.api.requests == 1)
        #expect(app.presenter.log == [
            "present Placing order…", "fade Placing order…", "gone Placing order…",
            "present Order placed", "fade Order placed", "gone Order placed",
        ])
    }

    @Test func anErrorToastJumpsAheadOfWaitingMessagesAndRetryWaitsForIt() async throws {
        let app = Harness(answers: [.failure(OrderScreen.Declined(description: "Card declined")), .success("Order placed")])
        // Other parts of the app are already talking: one toast visible, one waiting.
        app.queue.enqueue(.info("Cart saved"))
        await app.clock.waitForSleepers(1)
        app.queue.enqueue(.info("Free shipping over 50"))

        await app.store.send(.submitTapped) { try $0.submission.handle(.submit) }
        await app.clock.waitForSleepers(2)  // "Cart saved" display timer and the request
        app.clock.advance(by: .milliseconds(800))  // the request fails while the HUD is still waiting
        await app.store.receive(.submitFailed(reason: "Card declined")) {
            try $0.submission.handle(.submitFailed(reason: "Card declined"))
        }
        await settle("the error toast to be queued") { app.queue.waitingCount == 3 }
        app.clock.advance(by: .milliseconds(1200))  // "Cart saved" reaches its 2 s
        await app.elapse(.milliseconds(250))
        await settle("the error toast") { app.shown.last == "present Card declined" }
        #expect(app.shown == ["present Cart saved", "present Card declined"], "the error goes before the waiting tip")
        await app.store.send(.retryTapped)  // refused: the error is still on screen
        await app.elapse(.milliseconds(2500))
        await app.elapse(.milliseconds(250))
        await app.store.receive(.errorToastDismissed) { $0.retryEnabled = true }
        await app.elapse(.seconds(2))  // the tip
        await app.elapse(.milliseconds(250))
        await settle("the queue to drain") { app.queue.isIdle }
        #expect(app.shown == ["present Cart saved", "present Card declined", "present Free shipping over 50"],
                "the superseded HUD never appears after the error")

        await app.store.send(.retryTapped) {
            try $0.submission.handle(.retry)
            $0.retryEnabled = false
        }
        await app.elapse(.milliseconds(800))
        await app.store.receive(.submitSucceeded(message: "Order placed")) {
            try $0.submission.handle(.submitSucceeded(message: "Order placed"))
        }
        await app.elapse(.milliseconds(250))
        await app.elapse(.milliseconds(1500))
        await app.elapse(.milliseconds(250))
        await app.store.receive(.toastDismissed) { try $0.submission.handle(.toastDismissed) }
        app.store.cancelEffects()  // the user leaves during the countdown
        await app.store.finish()
        #expect(app.api.requests == 2)
    }

    @Test func aDoubleSubmitSendsOneRequestAndShowsOneHUD() async throws {
        let app = Harness(answers: [.success("Order placed")])
        await app.store.send(.submitTapped) { try $0.submission.handle(.submit) }
        await app.clock.waitForSleepers(1)  // the request is in flight
        await app.store.send(.submitTapped)  // no state change, no effect
        await app.store.send(.submitTapped)
        #expect(app.store.runningEffectCount == 1)
        app.clock.advance(by: .milliseconds(800))
        await app.store.receive(.submitSucceeded(message: "Order placed")) {
            try $0.submission.handle(.submitSucceeded(message: "Order placed"))
        }
        await app.store.send(.submitTapped)  // tapping while the success toast shows is refused too
        await app.elapse(.milliseconds(250))
        await app.elapse(.milliseconds(1500))
        await app.elapse(.milliseconds(250))
        await app.store.receive(.toastDismissed) { try $0.submission.handle(.toastDismissed) }
        app.store.cancelEffects()
        await app.store.finish()
        #expect(app.api.requests == 1)
        #expect(app.shown == ["present Placing order…", "present Order placed"])
    }
}
