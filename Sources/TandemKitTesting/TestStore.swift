import TandemSynchronization
import TandemKit
import Testing

/// A store for tests that asserts every state change and every action effects send back.
///
/// `send` reduces an action and checks the resulting state against the expectation built by its
/// closure (starting from the state before, so the closure must describe the whole change).
/// Actions sent by effects are held back — not reduced — until `receive` asserts them, one by one,
/// in order, each with its own state check. With `exhaustivity == .on` (the default), a test also
/// fails if an action from an effect is never received or an effect is still running at the end
/// (`finish()`, `assertNoPendingActions()`, or when the test store is released).
///
/// Failures are recorded with Swift Testing's `Issue.record`, at the call site, with a line diff
/// of expected (`−`) and actual (`+`) state. Effects run for real, in tasks; waiting for their
/// actions is bounded by `timeout` measured on the injected clock.
public final class TestStore<State: Sendable & Equatable, Action: Sendable & Equatable>: Sendable {
    /// A reducer, as in `Store`.
    public typealias Reducer = Store<State, Action>.Reducer

    private struct Settings {
        var state: State
        var exhaustivity: Exhaustivity = .on
        var timeout: Duration
    }

    private let settings: Locked<Settings>
    private let reducer: Reducer
    private let inbox: TestInbox<Action>
    private let runner: EffectRunner<Action>
    private let clock: any Clock<Duration>
    private let createdAt: SourceLocation

    /// Creates a test store.
    ///
    /// - Parameters:
    ///   - timeout: How long `receive` and `finish` wait, by default, measured on `clock`.
    ///   - clock: The clock timeouts are measured on.
    public init(
        initialState: State,
        reducer: @escaping Reducer,
        timeout: Duration = .seconds(1),
        clock: any Clock<Duration> = ContinuousClock(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let inbox = TestInbox<Action>()
        settings = Locked(Settings(state: initialState, timeout: timeout))
        self.reducer = reducer
        self.inbox = inbox
        runner = EffectRunner { inbox.signal() }
        self.clock = clock
        createdAt = sourceLocation
    }

    deinit {
        let running = runner.runningCount
        runner.close()
        guard exhaustivity == .on else { return }
        if running > 0 {
            Issue.record(Comment(rawValue: Self.runningMessage(running)), sourceLocation: createdAt)
        }
        let pending = inbox.actions
        if !pending.isEmpty {
            Issue.record(Comment(rawValue: Self.pendingMessage(pending)), sourceLocation: createdAt)
        }
    }

    /// The current state: the initial state with every sent and received action applied.
    public var state: State { settings.withLock { $0.state } }

    /// How strictly the test is checked; `.on` unless changed.
    public var exhaustivity: Exhaustivity {
        get { settings.withLock { $0.exhaustivity } }
        set { settings.withLock { $0.exhaustivity = newValue } }
    }

    /// The default wait of `receive` and `finish`.
    public var timeout: Duration {
        get { settings.withLock { $0.timeout } }
        set { settings.withLock { $0.timeout = newValue } }
    }

    /// The actions effects have sent that no `receive` has taken yet, oldest first.
    public var pendingActions: [Action] { inbox.actions }

    /// The number of effect operations still running.
    public var runningEffectCount: Int { runner.runningCount }

    /// Sends `action` and asserts the state change.
    ///
    /// - Parameter update: Mutates a copy of the state before the action into the expected state
    ///   after it (exhaustive), or of the actual state after it (non-exhaustive: only what the
    ///   closure sets is checked). Omitted: exhaustive mode expects no change.
    ///
    /// In exhaustive mode, sending while received actions are still unasserted is a failure.
    public func send(
        _ action: Action,
        assert update: ((inout State) throws -> Void)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        if exhaustivity == .on {
            let pending = inbox.actions
            if !pending.isEmpty {
                Issue.record(
                    Comment(rawValue: "Sent \(action) while effects' actions are unasserted. " + Self.pendingMessage(pending)),
                    sourceLocation: sourceLocation
                )
            }
        }
        apply(action, assert: update, sourceLocation: sourceLocation)
        await Task.yield()
    }

    /// Waits (at most `timeout`, default `self.timeout`) for the next action an effect sends,
    /// asserts it equals `expected`, reduces it and asserts the state change like `send`.
    ///
    /// Non-exhaustive mode skips — reducing without checks — actions before the first one equal
    /// to `expected`.
    public func receive(
        _ expected: Action,
        timeout: Duration? = nil,
        assert update: ((inout State) throws -> Void)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let limit = timeout ?? self.timeout
        let inbox = self.inbox
        if exhaustivity == .on {
            let arrived = await inbox.wait(until: { !inbox.actions.isEmpty }, timeout: limit, clock: clock)
            guard arrived, let actual = inbox.takeFirst() else {
                Issue.record(
                    Comment(rawValue: "Expected to receive \(expected), but no action arrived within \(limit)."),
                    sourceLocation: sourceLocation
                )
                return
            }
            if actual != expected {
                Issue.record(
                    Comment(rawValue: "Received an unexpected action (− expected, + received):\n"
                        + StateDiff.render(expected: expected, actual: actual)),
                    sourceLocation: sourceLocation
                )
            }
            apply(actual, assert: update, sourceLocation: sourceLocation)
        } else {
            let arrived = await inbox.wait(until: { inbox.actions.contains(expected) }, timeout: limit, clock: clock)
            guard arrived else {
                Issue.record(
                    Comment(rawValue: "Expected to receive \(expected) within \(limit); received instead: \(inbox.actions)."),
                    sourceLocation: sourceLocation
                )
                return
            }
            while let actual = inbox.takeFirst() {
                if actual == expected {
                    apply(actual, assert: update, sourceLocation: sourceLocation)
                    break
                }
                apply(actual, assert: nil, sourceLocation: sourceLocation)
            }
        }
        await Task.yield()
    }

    /// Reduces every action effects have sent so far without asserting them or their changes.
    public func skipReceivedActions() {
        for action in inbox.takeAll() {
            applyUnchecked(action)
        }
    }

    /// Cancels every running effect; it is then no longer a failure for them to be unfinished.
    public func cancelEffects() {
        runner.cancelAll()
    }

    /// Waits (at most `timeout`, default `self.timeout`) for every effect to finish. Effects
    /// still running then are a failure (in both modes) and are cancelled. In exhaustive mode,
    /// also fails for received actions left unasserted.
    public func finish(timeout: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation) async {
        let limit = timeout ?? self.timeout
        let runner = self.runner
        let finished = await inbox.wait(until: { runner.runningCount == 0 }, timeout: limit, clock: clock)
        if !finished {
            let running = runner.runningCount
            runner.cancelAll()
            Issue.record(Comment(rawValue: Self.runningMessage(running) + " (waited \(limit))"), sourceLocation: sourceLocation)
        }
        if exhaustivity == .on {
            assertNoPendingActions(sourceLocation: sourceLocation)
        }
    }

    /// Fails if effects have sent actions that no `receive` has asserted.
    public func assertNoPendingActions(sourceLocation: SourceLocation = #_sourceLocation) {
        let pending = inbox.actions
        if !pending.isEmpty {
            Issue.record(Comment(rawValue: Self.pendingMessage(pending)), sourceLocation: sourceLocation)
        }
    }

    // MARK: - Reduction

    private func apply(_ action: Action, assert update: ((inout State) throws -> Void)?, sourceLocation: SourceLocation) {
        let (before, after) = applyUnchecked(action)
        let mode = exhaustivity
        guard mode == .on || update != nil else { return }
        var expected = mode == .on ? before : after
        do {
            try update?(&expected)
        } catch {
            Issue.record(error, sourceLocation: sourceLocation)
            return
        }
        if expected != after {
            Issue.record(
                Comment(rawValue: "State after \(action) differs from the expectation (− expected, + actual):\n"
                    + StateDiff.render(expected: expected, actual: after)),
                sourceLocation: sourceLocation
            )
        }
    }

    @discardableResult
    private func applyUnchecked(_ action: Action) -> (before: State, after: State) {
        let before = state
        var after = before
        let effect = reducer(&after, action)
        settings.withLock { $0.state = after }
        let inbox = self.inbox
        runner.execute(effect) { inbox.append($0) }
        return (before, after)
    }

    private static func runningMessage(_ count: Int) -> String {
        "\(count) effect(s) still running at the end of the test: receive their actions and await finish(), or cancel them."
    }

    private static func pendingMessage(_ actions: [Action]) -> String {
        "\(actions.count) action(s) received from effects but not asserted: "
            + actions.map { String(describing: $0) }.joined(separator: ", ")
            + ". Assert them with receive(_:)."
    }
}
