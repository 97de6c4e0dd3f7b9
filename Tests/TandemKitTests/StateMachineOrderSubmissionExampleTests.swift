import Testing
import TandemKit

/// The order-submission flow: submit → "submitting" HUD → success toast → after the toast is
/// gone, count down to the order page; the user may cancel the countdown; a failure can be retried.
enum OrderSubmissionState: Hashable, Sendable {
    case idle
    case submitting
    case success(message: String)
    case failure(reason: String)
    case navigating(countdown: Int)
    case cancelled
    case navigated
}

enum OrderSubmissionEvent: Hashable, Sendable {
    case submit
    case submitSucceeded(message: String)
    case submitFailed(reason: String)
    case toastDismissed
    case tick
    case cancelNavigation
    case retry
}

extension TransitionMatcher where Value == OrderSubmissionState {
    static let navigating = Self.kind("navigating") { if case .navigating = $0 { true } else { false } }
    static let success = Self.kind("success") { if case .success = $0 { true } else { false } }
    static let failure = Self.kind("failure") { if case .failure = $0 { true } else { false } }
}

enum OrderSubmission {
    static let countdownSeconds = 3

    static func table(log: FlowLog<String>) -> TransitionTable<OrderSubmissionState, OrderSubmissionEvent> {
        typealias T = Transition<OrderSubmissionState, OrderSubmissionEvent>
        return TransitionTable([
            T(from: .idle, on: .submit, to: .submitting),
            T(from: .exactly(.submitting), on: .kind("submitSucceeded") { if case .submitSucceeded = $0 { true } else { false } },
              to: .computed("success") { _, event in
                  if case let .submitSucceeded(message) = event { return .success(message: message) }
                  return .success(message: "")
              }),
            T(from: .exactly(.submitting), on: .kind("submitFailed") { if case .submitFailed = $0 { true } else { false } },
              to: .computed("failure") { _, event in
                  if case let .submitFailed(reason) = event { return .failure(reason: reason) }
                  return .failure(reason: "")
              }),
            T(from: .success, on: .toastDismissed, to: .state(.navigating(countdown: countdownSeconds))),
            T(from: .navigating, on: .tick, to: .computed("navigating") { state, _ in
                  if case let .navigating(countdown) = state { return .navigating(countdown: countdown - 1) }
                  return state
              }, guard: TransitionGuard("countdown > 1") { state, _ in
                  if case let .navigating(countdown) = state { return countdown > 1 }
                  return false
              }, internal: true),
            T(from: .navigating, on: .tick, to: .state(.navigated)),
            T(from: .navigating, on: .cancelNavigation, to: .state(.cancelled)),
            T(from: .failure, on: .retry, to: .state(.submitting)),
        ])
        .onEntry(.exactly(.submitting)) { _ in log.append("show loading") }
        .onExit(.exactly(.submitting)) { _ in log.append("hide loading") }
        .onEntry(.success) { change in
            if case let .success(message) = change.to { log.append("toast \(message)") }
        }
        .onEntry(.failure) { change in
            if case let .failure(reason) = change.to { log.append("error toast \(reason)") }
        }
        .onEntry(.exactly(.navigated)) { _ in log.append("push order page") }
    }
}

@Suite struct StateMachineOrderSubmissionExampleTests {
    typealias Machine = StateMachine<OrderSubmissionState, OrderSubmissionEvent>
    typealias Failure = StateMachineError<OrderSubmissionState, OrderSubmissionEvent>

    @Test func submitsShowsToastThenCountsDownAndNavigates() throws {
        let log = FlowLog<String>()
        var machine = Machine(initial: .idle, table: OrderSubmission.table(log: log))
        try machine.handle(.submit)
        try machine.handle(.submitSucceeded(message: "Order placed"))
        #expect(machine.state == .success(message: "Order placed"))
        try machine.handle(.toastDismissed)
        #expect(machine.state == .navigating(countdown: 3))
        try machine.handle(.tick)
        try machine.handle(.tick)
        #expect(machine.state == .navigating(countdown: 1))
        try machine.handle(.tick)
        #expect(machine.state == .navigated)
        #expect(log.all == ["show loading", "hide loading", "toast Order placed", "push order page"])
    }

    @Test func userCancelsCountdown() throws {
        var machine = Machine(initial: .navigating(countdown: 2), table: OrderSubmission.table(log: FlowLog()))
        try machine.handle(.cancelNavigation)
        #expect(machine.state == .cancelled)
        #expect(throws: Failure.invalidTransition(from: .cancelled, event: .tick)) { try machine.handle(.tick) }
    }

    @Test func failureCanBeRetried() throws {
        let log = FlowLog<String>()
        var machine = Machine(initial: .idle, table: OrderSubmission.table(log: log))
        try machine.handle(.submit)
        try machine.handle(.submitFailed(reason: "offline"))
        #expect(machine.state == .failure(reason: "offline"))
        try machine.handle(.retry)
        #expect(machine.state == .submitting)
        try machine.handle(.submitSucceeded(message: "ok"))
        #expect(log.all == ["show loading", "hide loading", "error toast offline", "show loading", "hide loading", "toast ok"])
    }

    @Test(arguments: [
        (OrderSubmissionState.idle, OrderSubmissionEvent.tick),
        (.idle, .retry),
        (.submitting, .submit),
        (.submitting, .cancelNavigation),
        (.success(message: "m"), .cancelNavigation),
        (.success(message: "m"), .submit),
        (.navigating(countdown: 2), .submit),
        (.cancelled, .cancelNavigation),
        (.navigated, .retry),
        (.failure(reason: "r"), .toastDismissed),
    ])
    func refusesTransitionsTheFlowDoesNotAllow(state: OrderSubmissionState, event: OrderSubmissionEvent) {
        var machine = Machine(initial: state, table: OrderSubmission.table(log: FlowLog()))
        #expect(throws: Failure.invalidTransition(from: state, event: event)) { try machine.handle(event) }
        #expect(machine.state == state)
    }

    @Test func drivesStoreStyleReducerAsValue() throws {
        struct ScreenState: Equatable, Sendable {
            var submission: Machine
            var lastError: String?
        }
        func reduce(_ state: inout ScreenState, _ event: OrderSubmissionEvent) {
            do { try state.submission.handle(event); state.lastError = nil } catch { state.lastError = error.description }
        }
        let table = OrderSubmission.table(log: FlowLog())
        var state = ScreenState(submission: Machine(initial: .idle, table: table))
        let before = state
        reduce(&state, .submit)
        #expect(state != before)
        reduce(&state, .submit)
        #expect(state.submission.state == .submitting)
        #expect(state.lastError?.contains("'submitting'") == true)
    }

    @Test func exportsTheFlowAsDOT() {
        let dot = Machine(initial: .idle, table: OrderSubmission.table(log: FlowLog())).dot(name: "OrderSubmission")
        #expect(dot.contains("\"navigating\" -> \"navigating\" [label=\"tick [countdown > 1]\", style=dashed];"))
        #expect(dot.contains("\"success\" -> \"navigating(countdown: 3)\" [label=\"toastDismissed\"];"))
        #expect(dot.contains("\"__start\" -> \"idle\";"))
    }
}
