import TandemSynchronization

/// One controllable execution of a pipeline: start, pause (between steps), resume, cancel, and
/// observe progress and the outcome.
///
/// Guarantees:
/// - The outcome is delivered exactly once per run — to the completion given at creation, to every
///   `onCompletion` handler (each exactly once, also when registered after the end) and to every
///   `await result` — in every case: success, first error, and cancellation (`.cancelled`).
/// - A `cancel()` that returns true wins: the outcome is `.cancelled`, even when it raced with the
///   last step finishing; one that returns false came after the end and changes nothing.
/// - After a cancel no later step starts; the running step sees Swift task cancellation. The
///   outcome is delivered once that step has returned, so nothing of the run executes afterwards.
/// - Handlers run synchronously on the task that ended the run, before `await result` resumes.
/// - A run that is never started has no outcome yet: `cancel()` it to deliver `.cancelled`.
///
/// Thread-safe: all methods may be called from any thread or task.
public final class PipelineRun<Output: Sendable>: PipelineControl {
    private enum Phase {
        case idle
        case running
        case finished(PipelineResult<Output>)
    }

    private enum CancelAction {
        case none
        case cancelRunning(Task<Void, Never>?)
        case finishIdle
    }

    private struct State {
        var phase = Phase.idle
        var cancelRequested = false
        /// Set once completion handlers have run; `await result` returns only after that.
        var delivered = false
        var task: Task<Void, Never>?
        var handlers: [@Sendable (PipelineResult<Output>) -> Void] = []
        var waiters: [CheckedContinuation<PipelineResult<Output>, Never>] = []
        var streams: [AsyncStream<PipelineProgress>.Continuation] = []
    }

    private let state: Locked<State>
    private let context: RunContext
    private let observed: ProgressObservers
    private let operation: @Sendable (RunContext) async throws -> Output

    init(
        count: Int,
        environment: PipelineEnvironment,
        onProgress: (@Sendable (PipelineProgress) -> Void)?,
        completion: (@Sendable (PipelineResult<Output>) -> Void)?,
        operation: @escaping @Sendable (RunContext) async throws -> Output
    ) {
        let observers = ProgressObservers()
        observed = observers
        context = RunContext(environment: environment, count: count) { event in
            onProgress?(event)
            observers.emit(event)
        }
        var initial = State()
        if let completion { initial.handlers.append(completion) }
        state = Locked(initial)
        self.operation = operation
    }

    /// True after start until the run finishes, except while paused or after a cancel took effect.
    public var isRunning: Bool {
        state.withLock { state in
            if case .running = state.phase { return !state.cancelRequested && !context.isPaused }
            return false
        }
    }

    /// True once a `cancel()` took effect.
    public var isCancelled: Bool {
        state.withLock { $0.cancelRequested }
    }

    /// True while a pause is requested and the run has not finished.
    public var isPaused: Bool {
        state.withLock { state in
            if case .finished = state.phase { return false }
            return context.isPaused
        }
    }

    /// True once the outcome is decided.
    public var isFinished: Bool {
        state.withLock { state in
            if case .finished = state.phase { return true }
            return false
        }
    }

    /// Starts the run in a new task; does nothing if it was already started, finished or cancelled.
    public func start() {
        let shouldStart = state.withLock { state -> Bool in
            guard case .idle = state.phase else { return false }
            state.phase = .running
            return true
        }
        guard shouldStart else { return }
        let task = Task { await self.execute() }
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.cancelRequested
        }
        if cancelled { task.cancel() }
    }

    /// Requests a pause: the step now running finishes, the next one waits until `resume()`.
    /// Allowed before `start()` (the run then waits before its first step).
    public func pause() {
        context.pause()
    }

    /// Lifts a pause; if the run was never started, starts it.
    public func resume() {
        context.resume()
        start()
    }

    /// Cancels the run: no later step starts and the running step is cancelled cooperatively.
    ///
    /// - Returns: true if the cancel took effect (the outcome will be `.cancelled`); false if the
    ///   run had already finished or was already cancelled.
    @discardableResult
    public func cancel() -> Bool {
        let action = state.withLock { state -> CancelAction in
            switch state.phase {
            case .finished:
                return .none
            case .running:
                if state.cancelRequested { return .none }
                state.cancelRequested = true
                return .cancelRunning(state.task)
            case .idle:
                state.cancelRequested = true
                return .finishIdle
            }
        }
        switch action {
        case .none:
            return false
        case let .cancelRunning(task):
            context.cancel()
            task?.cancel()
            return true
        case .finishIdle:
            context.cancel()
            finish(.cancelled)
            return true
        }
    }

    /// The outcome, once the run has finished. Waiting does not start the run; cancelling the
    /// waiting task does not cancel the run.
    public var result: PipelineResult<Output> {
        get async {
            await withCheckedContinuation { continuation in
                let finished = state.withLock { state -> PipelineResult<Output>? in
                    if case let .finished(result) = state.phase, state.delivered { return result }
                    state.waiters.append(continuation)
                    return nil
                }
                if let finished { continuation.resume(returning: finished) }
            }
        }
    }

    /// Waits for the outcome and returns the output, or throws the failure (`.cancelled` when cancelled).
    public func value() async throws(PipelineError) -> Output {
        try await result.get()
    }

    /// Calls `handler` exactly once with the outcome: when the run finishes, or right away if it already has.
    public func onCompletion(_ handler: @escaping @Sendable (PipelineResult<Output>) -> Void) {
        let finished = state.withLock { state -> PipelineResult<Output>? in
            if case let .finished(result) = state.phase { return result }
            state.handlers.append(handler)
            return nil
        }
        if let finished { handler(finished) }
    }

    /// A stream of the progress events that happen from now on, ending when the run finishes.
    /// Subscribe before `start()` to see every event.
    public func progressUpdates() -> AsyncStream<PipelineProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: PipelineProgress.self)
        let finished = state.withLock { state -> Bool in
            if case .finished = state.phase { return true }
            state.streams.append(continuation)
            observed.add(continuation)
            return false
        }
        if finished { continuation.finish() }
        return stream
    }

    private func execute() async {
        let outcome: PipelineResult<Output>
        do {
            outcome = .success(try await operation(context))
        } catch {
            let error = PipelineError.normalize(error, context: context, index: 0, name: "", attempts: 1)
            if case .cancelled = error { outcome = .cancelled } else { outcome = .failure(error) }
        }
        finish(outcome)
    }

    /// Decides the outcome (a requested cancel wins) and delivers it, exactly once: first to the
    /// completion handlers and progress streams, then to `await result` waiters.
    private func finish(_ outcome: PipelineResult<Output>) {
        let decided = state.withLock { state -> (PipelineResult<Output>, State)? in
            if case .finished = state.phase { return nil }
            let final = state.cancelRequested ? .cancelled : outcome
            state.phase = .finished(final)
            let taken = state
            state.handlers = []
            state.streams = []
            state.task = nil
            return (final, taken)
        }
        guard let (final, taken) = decided else { return }
        observed.removeAll()
        for handler in taken.handlers { handler(final) }
        for stream in taken.streams { stream.finish() }
        let waiters = state.withLock { state in
            state.delivered = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: final) }
    }
}
