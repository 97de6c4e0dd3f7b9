/// A hook that sees every action a store processes, once before and once after reduction,
/// and can dispatch by returning effects (e.g. `.send`, or `.run` for async work).
///
/// Middleware runs on the thread that drains the store, outside the store's lock, in the order
/// the middleware were given. For each action: every `willReduce`, then the reducer, then every
/// `didReduce`, then the synchronous observers. Actions it dispatches (through its effects or by
/// calling `send` on the store) are queued and processed after the current action — never
/// reentrantly. Because `didReduce` receives the state before the action, a store with middleware
/// keeps that copy alive during reduction, so collections the reducer mutates are copied once.
public struct Middleware<State: Sendable, Action: Sendable>: Sendable {
    /// Called before the reducer with the action and the state it will be applied to.
    public var willReduce: @Sendable (_ action: Action, _ state: State) -> Effect<Action>
    /// Called after the reducer with the action, the state before and the state after it.
    public var didReduce: @Sendable (_ action: Action, _ oldState: State, _ newState: State) -> Effect<Action>

    /// Creates middleware from its two hooks; either may be omitted.
    public init(
        willReduce: @escaping @Sendable (_ action: Action, _ state: State) -> Effect<Action> = { _, _ in .none },
        didReduce: @escaping @Sendable (_ action: Action, _ oldState: State, _ newState: State) -> Effect<Action> = { _, _, _ in .none }
    ) {
        self.willReduce = willReduce
        self.didReduce = didReduce
    }

    /// `reducer` with this middleware around it, as one reducer: `willReduce`, the reducer and
    /// `didReduce` in the store's order, their effects merged. For stores that take a reducer only (a
    /// `TestStore`, a scope) and for testing a middleware step by step.
    public func around(_ reducer: @escaping Store<State, Action>.Reducer) -> Store<State, Action>.Reducer {
        let middleware = self
        return { state, action in
            let before = state
            let early = middleware.willReduce(action, state)
            let own = reducer(&state, action)
            let late = middleware.didReduce(action, before, state)
            return .merge(early, own, late)
        }
    }
}
