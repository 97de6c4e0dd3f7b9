import Synchronization

/// The single writer behind a root store and all of its scopes: the state, the queue of
/// pending work, the observers and the effect runner.
///
/// Isolation: one `Mutex` guards everything mutable. The thread whose `send` finds the store
/// idle becomes the drainer and processes items until the queue is empty; every other `send`
/// (from another thread, or reentrantly from an observer, middleware or effect) only enqueues.
/// The reducer runs inside the lock (so it mutates the state in place, without copy-on-write);
/// observers, middleware and effects run outside it, on the drainer's thread, one at a time.
/// A `send` made by a reducer itself is recognised by thread identity and queued as well.
final class StoreCore<State: Sendable, Action: Sendable>: Sendable {
    typealias Reducer = @Sendable (inout State, Action) -> Effect<Action>
    typealias Observers = ContiguousArray<StoreObserver<State>>

    private enum Item {
        case action(Action)
        case attach(StoreObserver<State>)
    }

    /// What the drainer does outside the lock after a locked transition.
    private enum Step {
        /// The reducer ran; notify `observers` with `state` (nil when nobody needs it) and execute `effect`.
        case reduced(effect: Effect<Action>, state: State?, observers: Observers)
        /// Middleware must see `action` and `state` before the reducer runs.
        case pending(action: Action, state: State)
        /// A new stream observer receives its first value.
        case attached(StoreObserver<State>, State)
    }

    private struct Inner {
        var state: State
        var queue: [Item] = []
        var head = 0
        var draining = false
        var closed = false
        var observers: Observers = []

        mutating func dequeue() -> Item? {
            guard head < queue.count else { return nil }
            let item = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 && head * 2 >= queue.count {
                queue.removeFirst(head)
                head = 0
            }
            return item
        }
    }

    /// Actions sent by a reducer while it runs. Only the thread that holds the lock and runs the
    /// reducer touches it, which makes the unchecked conformance sound.
    private final class ReentrantActions: @unchecked Sendable {
        var actions: [Action] = []
    }

    private let inner: Mutex<Inner>
    private let reducer: Reducer
    private let middleware: [Middleware<State, Action>]
    private let runner = EffectRunner<Action>()
    private let reducingThread = Atomic<UInt>(0)
    private let reentrant = ReentrantActions()

    init(initialState: State, reducer: @escaping Reducer, middleware: [Middleware<State, Action>]) {
        inner = Mutex(Inner(state: initialState))
        self.reducer = reducer
        self.middleware = middleware
    }

    var state: State {
        precondition(
            reducingThread.load(ordering: .relaxed) != ThreadIdentity.current,
            "A reducer must not read its store: it is given the state as its inout argument."
        )
        return inner.withLock { $0.state }
    }

    var runningEffectCount: Int { runner.runningCount }

    func send(_ action: Action) {
        let thread = ThreadIdentity.current
        if reducingThread.load(ordering: .relaxed) == thread {
            reentrant.actions.append(action)
            return
        }
        submit(.action(action), thread: thread)
    }

    func observe(_ body: @escaping @Sendable (State) -> Void) -> ObservationToken {
        let observer = StoreObserver(notify: body)
        inner.withLock { inner in
            if !inner.closed { inner.observers.append(observer) }
        }
        return ObservationToken { [weak self] in self?.detach(observer) }
    }

    func values<Value: Equatable & Sendable>(_ transform: @escaping @Sendable (State) -> Value) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        let last = LastValue<Value>()
        let observer = StoreObserver<State>(
            notify: { state in
                let value = transform(state)
                if last.value != value {
                    last.value = value
                    continuation.yield(value)
                }
            },
            onClose: { continuation.finish() }
        )
        continuation.onTermination = { [weak self] _ in self?.detach(observer) }
        submit(.attach(observer), thread: ThreadIdentity.current)
        return stream
    }

    /// Cancels every effect, finishes every stream and drops every later `send`.
    func close() {
        let observers: Observers = inner.withLock { inner in
            inner.closed = true
            var observers = inner.observers
            for case .attach(let observer) in inner.queue[inner.head...] { observers.append(observer) }
            inner.queue.removeAll()
            inner.head = 0
            inner.observers.removeAll()
            return observers
        }
        runner.close()
        for observer in observers { observer.close() }
    }

    // MARK: - Draining

    private func submit(_ item: Item, thread: UInt) {
        let first: Step? = inner.withLock { inner in
            if inner.closed {
                if case .attach(let observer) = item { observer.close() }
                return nil
            }
            if inner.draining {
                inner.queue.append(item)
                return nil
            }
            inner.draining = true
            return step(for: item, in: &inner, thread: thread)
        }
        guard var step = first else { return }
        while true {
            perform(step, thread: thread)
            guard let next = inner.withLock({ inner -> Step? in
                guard !inner.closed, let item = inner.dequeue() else {
                    inner.draining = false
                    return nil
                }
                return self.step(for: item, in: &inner, thread: thread)
            }) else { return }
            step = next
        }
    }

    private func step(for item: Item, in inner: inout Inner, thread: UInt) -> Step {
        switch item {
        case .attach(let observer):
            inner.observers.append(observer)
            return .attached(observer, inner.state)
        case .action(let action):
            if middleware.isEmpty { return reduce(action, in: &inner, thread: thread) }
            return .pending(action: action, state: inner.state)
        }
    }

    private func reduce(_ action: Action, in inner: inout Inner, thread: UInt) -> Step {
        reducingThread.store(thread, ordering: .relaxed)
        let effect = reducer(&inner.state, action)
        reducingThread.store(0, ordering: .relaxed)
        if !reentrant.actions.isEmpty {
            for action in reentrant.actions { inner.queue.append(.action(action)) }
            reentrant.actions.removeAll()
        }
        let observers = inner.observers
        let needsState = !observers.isEmpty || !middleware.isEmpty
        return .reduced(effect: effect, state: needsState ? inner.state : nil, observers: observers)
    }

    private func perform(_ step: Step, thread: UInt) {
        switch step {
        case .attached(let observer, let state):
            observer.deliver(state)
        case .reduced(let effect, let state, let observers):
            if let state {
                for observer in observers { observer.deliver(state) }
            }
            execute(effect)
        case .pending(let action, let oldState):
            for hook in middleware { execute(hook.willReduce(action, oldState)) }
            let reduced = inner.withLock { inner in reduce(action, in: &inner, thread: thread) }
            guard case .reduced(let effect, let newState?, let observers) = reduced else { return }
            let after = middleware.map { $0.didReduce(action, oldState, newState) }
            for observer in observers { observer.deliver(newState) }
            execute(effect)
            for effect in after { execute(effect) }
        }
    }

    private func execute(_ effect: Effect<Action>) {
        guard !effect.operations.isEmpty else { return }
        runner.execute(effect) { [weak self] action in self?.send(action) }
    }

    private func detach(_ observer: StoreObserver<State>) {
        observer.deactivate()
        inner.withLock { inner in inner.observers.removeAll { $0 === observer } }
    }
}
