import TandemSynchronization

/// Runs a session's lifecycle by itself: it listens to an `AppEnvironment` (the system's by default) and
/// suspends, resumes and reconnects the session as `LifecyclePolicy` decides — after a grace period in the
/// background, at once in the foreground, once per settled network path change. `SharedRoom` runs one
/// unless told not to; a `SyncSession` used alone gets one with `SessionLifecycle(session:).start()`.
public final class SessionLifecycle: Sendable {
    private struct State {
        var policy: LifecyclePolicy
        var listening: Task<Void, Never>?
        var timer: Task<Void, Never>?
        var conditions = NetworkConditions()
    }
    private let environment: any AppEnvironment
    private let now: @Sendable () -> Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let onConditions: @Sendable (NetworkConditions) async -> Void
    private let state: Locked<State>
    /// One action at a time, in the order decided.
    private let actions: AsyncStream<LifecyclePolicy.Action>.Continuation
    private let performing: Task<Void, Never>

    /// A lifecycle for `session` fed by `environment`, timed by `clock`; `onConditions` hears every change of
    /// the network's cost or availability.
    public init<C: Clock>(session: some LifecycleTarget, environment: any AppEnvironment, settings: LifecycleSettings = LifecycleSettings(),
                          clock: C = ContinuousClock(), onConditions: @escaping @Sendable (NetworkConditions) async -> Void = { _ in })
    where C.Duration == Duration {
        self.environment = environment
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleep = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
        self.onConditions = onConditions
        state = Locked(State(policy: LifecyclePolicy(settings: settings)))
        let (queue, actions) = AsyncStream<LifecyclePolicy.Action>.makeStream()
        self.actions = actions
        let target: any LifecycleTarget = session
        performing = Task {
            for await action in queue {
                switch action {
                case .suspend: await target.suspend()
                case .resume: await target.resume()
                case .reconnectNow: await target.reconnectNow()
                case .conditions(let conditions): await onConditions(conditions)
                }
            }
        }
    }

    deinit {
        stop()
    }

    /// The network as last reported.
    public var conditions: NetworkConditions { state.withLock { $0.conditions } }

    /// Starts listening. Calling it again does nothing.
    public func start() {
        state.withLock { state in
            guard state.listening == nil else { return }
            let events = environment.events()
            state.listening = Task { [weak self] in
                for await event in events {
                    guard let self else { return }
                    self.handle(event)
                }
            }
        }
    }

    /// Stops listening; nothing more is done to the session.
    public func stop() {
        state.withLock { state in
            state.listening?.cancel()
            state.timer?.cancel()
            state.timer = nil
        }
        actions.finish()
    }

    private func handle(_ event: AppEnvironmentEvent) {
        let at = now()
        decide { $0.handle(event, at: at) }
    }

    private func fire() {
        let at = now()
        decide { $0.tick(at: at) }
    }

    /// Runs one decision of the policy, queues its actions and arms the timer for its next deadline.
    private func decide(_ body: (inout LifecyclePolicy) -> [LifecyclePolicy.Action]) {
        state.withLock { state in
            let decided = body(&state.policy)
            for action in decided {
                if case .conditions(let conditions) = action { state.conditions = conditions }
                actions.yield(action)
            }
            state.timer?.cancel()
            state.timer = state.policy.nextDeadline.map { deadline in
                Task { [weak self, sleep] in
                    guard (try? await sleep(deadline)) != nil else { return }
                    self?.fire()
                }
            }
        }
    }
}
