/// A unidirectional store: the single source of truth for a feature's `State`, changed only by
/// dispatching `Action`s through a reducer `(inout State, Action) -> Effect<Action>`.
///
/// Effects returned by the reducer run after the reduction and feed actions back; middleware
/// sees every action before and after reduction; synchronous observers see every resulting state,
/// and `AsyncStream`s (latest-wins, duplicate-suppressed) the newest one. `scope(state:action:)`
/// gives a child feature a view onto part of this store.
///
/// ## Isolation model: a lock-owning single writer with a drain loop
/// All mutable state lives behind one `Mutex`. `send` may be called from any thread or task,
/// synchronously. The caller that finds the store idle becomes the *drainer*: it reduces its
/// action and then keeps processing the queue until it is empty; any `send` made meanwhile — from
/// another thread, or from an observer, middleware, effect or even a reducer on the drainer's own
/// thread — is appended to the queue and processed after the current action, in order. So
/// actions are reduced strictly one at a time in a single total order, the reducer is never
/// re-entered, and no dispatch deadlocks or crashes.
///
/// Why not an actor: an actor would force every `send` to be `async` (a hop per action, which
/// costs more than the whole locked dispatch) and would make synchronous observation from UI code
/// impossible. The lock is held only while the reducer runs (so the state is mutated in place
/// without copy-on-write); observers, middleware and effects run outside it, on the drainer's
/// thread. Consequence: observers are called on whichever thread drained the store — hop to the
/// main actor inside the observer if the UI needs it. Reducers must be fast and pure, and must
/// not call the store other than through `send` (reading `state` from a reducer traps).
///
/// Cost: about 65 ns per action with one observer, about 3 ns per additional observer, the same
/// through a scope of depth 1 or 5 (`tandem bench store`; docs/bench/store.md). The dispatch path
/// is `@inlinable` so that it is specialised for the app's `State` and `Action`.
///
/// ## Lifetime
/// Releasing the root store cancels every running effect, finishes every stream and turns later
/// sends (from effects or scopes) into no-ops. Scoped stores do not keep the root alive.
public final class Store<State: Sendable, Action: Sendable>: Sendable {
    /// A reducer: applies an action to the state in place and returns the follow-up work.
    public typealias Reducer = @Sendable (_ state: inout State, _ action: Action) -> Effect<Action>

    @usableFromInline let backend: StoreBackend<State, Action>
    /// The dispatch path, built once where the store is created (and specialised there): the
    /// root core's `send`, or for a scope its parent's dispatch after embedding the action.
    @usableFromInline let dispatch: @Sendable (Action) -> Void

    /// Creates a root store.
    ///
    /// - Parameters:
    ///   - initialState: The state before any action.
    ///   - reducer: The only code that changes the state. It runs inside the store's lock: keep it
    ///     pure and quick, and return effects for anything else.
    ///   - middleware: Hooks run around every reduction, in this order.
    @inlinable
    public init(
        initialState: State,
        reducer: @escaping Reducer,
        middleware: [Middleware<State, Action>] = []
    ) {
        let core = StoreCore(initialState: initialState, reducer: reducer, middleware: middleware)
        backend = RootBackend(core: core)
        dispatch = { core.send($0) }
    }

    @usableFromInline
    init(backend: StoreBackend<State, Action>, dispatch: @escaping @Sendable (Action) -> Void) {
        self.backend = backend
        self.dispatch = dispatch
    }

    deinit {
        backend.storeReleased()
    }

    /// The current state (for a scope: the projection of the root's current state).
    ///
    /// Safe from any thread; it reflects every action reduced so far.
    public var state: State { backend.state }

    /// The number of effect operations started by this store's root that are still running.
    public var runningEffectCount: Int { backend.runningEffectCount }

    /// The number of observers (synchronous and streams) registered with the root.
    var observerCount: Int { backend.observerCount }

    /// Dispatches `action`. Synchronous when the store is idle: the action (and everything it
    /// queues) has been reduced and observed when `send` returns. When the store is busy — on
    /// another thread, or because this call comes from an observer, middleware or reducer — the
    /// action is queued and processed after the current one, in order.
    @inlinable
    public func send(_ action: Action) {
        dispatch(action)
    }

    /// Calls `body` with the new state after every action processed from now on, on the thread
    /// that processed it, in order, one call at a time. Read `state` for the current value.
    ///
    /// Keep the returned token: the observation ends when it is cancelled or released.
    public func observe(_ body: @escaping @Sendable (State) -> Void) -> ObservationToken {
        backend.observe(body)
    }

    /// A stream of `transform(state)`: the current value first, then each new value, never the
    /// value the consumer received last. It finishes when the root store is released; cancelling
    /// the consuming task, or dropping the stream, unsubscribes.
    ///
    /// Buffering is latest-wins: at most one value waits for the consumer, and a newer one replaces
    /// it. A consumer that reads slower than the store changes skips intermediate values but always
    /// ends on the newest, and memory does not grow with the backlog. Use `observe(_:)` to see
    /// every state.
    public func values<Value: Equatable & Sendable>(of transform: @escaping @Sendable (State) -> Value) -> AsyncStream<Value> {
        backend.values(transform)
    }

    /// A stream of one slice of the state, with consecutive duplicates removed (see `values(of:)`).
    public func values<Value: Equatable & Sendable>(of keyPath: any KeyPath<State, Value> & Sendable) -> AsyncStream<Value> {
        backend.values { $0[keyPath: keyPath] }
    }

    /// A store for a child feature: its state is `state` of this store's state, and its actions
    /// are embedded into this store's actions by `action` (typically an enum case, e.g.
    /// `Parent.Action.child`).
    ///
    /// The scope is a view: it has no state or queue of its own, does not keep the root store
    /// alive, and nested scopes compose onto the root once, so dispatch cost does not grow with
    /// depth.
    @inlinable
    public func scope<ChildState: Sendable, ChildAction: Sendable>(
        state: any KeyPath<State, ChildState> & Sendable,
        action: @escaping @Sendable (ChildAction) -> Action
    ) -> Store<ChildState, ChildAction> {
        scope(state: { $0[keyPath: state] }, action: action)
    }

    /// A store for a child feature whose state is computed from this store's state by `state`
    /// (see `scope(state:action:)` with a key path).
    @inlinable
    public func scope<ChildState: Sendable, ChildAction: Sendable>(
        state: @escaping @Sendable (State) -> ChildState,
        action: @escaping @Sendable (ChildAction) -> Action
    ) -> Store<ChildState, ChildAction> {
        let parentDispatch = dispatch
        return Store<ChildState, ChildAction>(
            backend: backend.scope(project: state, embed: action),
            dispatch: { parentDispatch(action($0)) }
        )
    }
}

extension Store where State: Equatable {
    /// A stream of states: the current state first, then each newer state, latest-wins, never the
    /// state the consumer received last. See `values(of:)` for the stream's lifetime and buffering.
    public var states: AsyncStream<State> {
        backend.values { $0 }
    }
}
