import TandemSynchronization

/// The single writer behind a root store and all of its scopes: the state, the queue of
/// pending work, the observers and the effect runner.
///
/// Isolation: one `Locked` guards everything mutable. The thread whose `send` finds the store
/// idle becomes the drainer and processes items until the queue is empty; every other `send`
/// (from another thread, or reentrantly from an observer, middleware or effect) only enqueues.
/// The reducer runs inside the lock (so it mutates the state in place, without copy-on-write);
/// observers, middleware and effects run outside it, on the drainer's thread, one at a time.
/// A `send` made by a reducer itself is recognised by thread identity and queued as well.
///
/// The hot path is `@inlinable` so that it is specialised for the app's concrete `State` and
/// `Action` where the store is created; unspecialised generic code would spend most of a
/// dispatch looking up type metadata.
@usableFromInline
final class StoreCore<State: Sendable, Action: Sendable>: Sendable {
    @usableFromInline
    typealias Reducer = @Sendable (inout State, Action) -> Effect<Action>
    @usableFromInline
    typealias Observers = ContiguousArray<StoreObserver<State>>

    /// A queued unit of work.
    @usableFromInline
    enum Item: Sendable {
        case action(Action)
        case attach(StoreObserver<State>)
    }

    /// What the drainer does outside the lock after one locked transition. Filled in place by
    /// `take` (a struct of optionals is much cheaper to move around than a generic enum).
    @usableFromInline
    struct Work {
        /// Middleware must see this action (with `state` before it) before the reducer runs.
        @usableFromInline var pendingAction: Action?
        /// A new stream observer that must receive `state` as its first value.
        @usableFromInline var attached: StoreObserver<State>?
        /// The reduction's effect.
        @usableFromInline var effect: Effect<Action> = .none
        /// The state to hand to observers or middleware; nil when nobody needs it.
        @usableFromInline var state: State?
        /// The observers to notify.
        @usableFromInline var observers: Observers = []

        @inlinable
        init() {}
    }

    @usableFromInline
    struct Inner: Sendable {
        @usableFromInline var state: State
        @usableFromInline var queue: [Item] = []
        @usableFromInline var head = 0
        @usableFromInline var draining = false
        @usableFromInline var closed = false
        @usableFromInline var observers: Observers = []

        @usableFromInline
        init(state: State) {
            self.state = state
        }

        @inlinable
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

    @usableFromInline let inner: Locked<Inner>
    @usableFromInline let reducer: Reducer
    @usableFromInline let middleware: [Middleware<State, Action>]
    @usableFromInline let runner = EffectRunner<Action>()
    /// The thread running the reducer (0 when none), to recognise a `send` from inside it.
    @usableFromInline let reducingThread = AtomicValue<UInt>(0)
    /// Actions sent from inside the reducer; `reentrantCount` lets the drainer skip the lock
    /// when there are none (the common case).
    @usableFromInline let reentrant = Locked<[Action]>([])
    @usableFromInline let reentrantCount = AtomicValue<Int>(0)

    @usableFromInline
    init(initialState: State, reducer: @escaping Reducer, middleware: [Middleware<State, Action>]) {
        inner = Locked(Inner(state: initialState))
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

    /// Registered observers (synchronous and streams), for tests of unsubscription.
    var observerCount: Int { inner.withLock { $0.observers.count } }

    @inlinable
    func send(_ action: Action) {
        let thread = ThreadIdentity.current
        if reducingThread.load(ordering: .relaxed) == thread {
            reentrant.withLock { $0.append(action) }
            reentrantCount.add(1, ordering: .relaxed)
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
        let (stream, _) = observationStream(transform)
        return stream
    }

    /// A latest-wins stream of `transform(state)` and its buffer (see `LatestValueMailbox`).
    ///
    /// The observer holds the buffer weakly and the stream holds the token that detaches the
    /// observer, so dropping the stream unsubscribes, as does cancelling the consuming task.
    func observationStream<Value: Equatable & Sendable>(
        _ transform: @escaping @Sendable (State) -> Value
    ) -> (AsyncStream<Value>, LatestValueMailbox<Value>) {
        let mailbox = LatestValueMailbox<Value>()
        let observer = StoreObserver<State>(
            notify: { [weak mailbox] state in mailbox?.offer(transform(state)) },
            onClose: { [weak mailbox] in mailbox?.finish() }
        )
        let token = ObservationToken { [weak self] in self?.detach(observer) }
        submit(.attach(observer), thread: ThreadIdentity.current)
        let stream = AsyncStream(unfolding: { await mailbox.next() }, onCancel: {
            token.cancel()
            mailbox.finish()
        })
        return (stream, mailbox)
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

    /// Queues `item`, or — if the store is idle — processes it and then drains the queue.
    @inlinable
    func submit(_ item: Item, thread: UInt) {
        var work = Work()
        var refused = false
        let drains = inner.withLock { inner -> Bool in
            if inner.closed {
                refused = true
                return false
            }
            if inner.draining {
                inner.queue.append(item)
                return false
            }
            inner.draining = true
            take(item, in: &inner, into: &work, thread: thread)
            return true
        }
        guard drains else {
            // Finishing a stream runs its termination handler, which takes the lock: do it outside.
            if refused, case .attach(let observer) = item { observer.close() }
            return
        }
        while true {
            perform(&work, thread: thread)
            let more = inner.withLock { inner -> Bool in
                guard !inner.closed, let next = inner.dequeue() else {
                    inner.draining = false
                    return false
                }
                take(next, in: &inner, into: &work, thread: thread)
                return true
            }
            if !more { return }
        }
    }

    /// The locked half of processing `item`: reduce it (unless middleware must see it first) or
    /// register the observer it attaches.
    @inlinable
    func take(_ item: Item, in inner: inout Inner, into work: inout Work, thread: UInt) {
        switch item {
        case .attach(let observer):
            inner.observers.append(observer)
            work.attached = observer
            work.state = inner.state
        case .action(let action):
            if middleware.isEmpty {
                reduce(action, in: &inner, into: &work, thread: thread)
            } else {
                work.pendingAction = action
                work.state = inner.state
            }
        }
    }

    @inlinable
    func reduce(_ action: Action, in inner: inout Inner, into work: inout Work, thread: UInt) {
        reducingThread.store(thread, ordering: .relaxed)
        work.effect = reducer(&inner.state, action)
        reducingThread.store(0, ordering: .relaxed)
        if reentrantCount.load(ordering: .relaxed) != 0 {
            reentrantCount.store(0, ordering: .relaxed)
            let queued = reentrant.withLock { actions in
                defer { actions.removeAll() }
                return actions
            }
            for action in queued { inner.queue.append(.action(action)) }
        }
        work.observers = inner.observers
        if !work.observers.isEmpty || !middleware.isEmpty { work.state = inner.state }
    }

    /// The unlocked half: middleware, observers, effects. Leaves `work` empty.
    @inlinable
    func perform(_ work: inout Work, thread: UInt) {
        if let observer = work.attached.take() {
            if let state = work.state.take() { observer.deliver(state) }
            return
        }
        if let action = work.pendingAction.take(), let oldState = work.state.take() {
            for hook in middleware { execute(hook.willReduce(action, oldState)) }
            inner.withLock { inner in reduce(action, in: &inner, into: &work, thread: thread) }
            guard let newState = work.state.take() else { return }
            let after = middleware.map { $0.didReduce(action, oldState, newState) }
            for observer in work.observers { observer.deliver(newState) }
            work.observers = []
            execute(work.effect)
            work.effect = .none
            for effect in after { execute(effect) }
            return
        }
        if let state = work.state.take() {
            for observer in work.observers { observer.deliver(state) }
        }
        work.observers = []
        if !work.effect.operations.isEmpty {
            execute(work.effect)
            work.effect = .none
        }
    }

    @usableFromInline
    func execute(_ effect: Effect<Action>) {
        guard !effect.operations.isEmpty else { return }
        runner.execute(effect) { [weak self] action in self?.send(action) }
    }

    @usableFromInline
    func detach(_ observer: StoreObserver<State>) {
        observer.deactivate()
        // Released after the lock: dropping the last reference may run arbitrary deinit code.
        let removed = inner.withLock { inner -> StoreObserver<State>? in
            guard let index = inner.observers.firstIndex(where: { $0 === observer }) else { return nil }
            return inner.observers.remove(at: index)
        }
        _ = removed
    }
}
