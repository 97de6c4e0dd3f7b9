/// A named condition a transition requires; when it returns false the event is refused with
/// `StateMachineError.guardRejected`, naming the guard.
public struct TransitionGuard<State: Hashable & Sendable, Event: Hashable & Sendable>: Sendable {
    /// The guard's name, shown in errors and in DOT edge labels as `event [name]`.
    public let name: String
    private let condition: @Sendable (State, Event) -> Bool

    /// Creates a guard named `name` that holds when `condition(state, event)` is true.
    ///
    /// The condition must be pure: it may be evaluated while looking for a matching transition
    /// even when a later transition is the one taken.
    public init(_ name: String, _ condition: @escaping @Sendable (State, Event) -> Bool) {
        self.name = name
        self.condition = condition
    }

    /// Whether the guard allows the transition from `state` on `event`.
    public func allows(_ state: State, _ event: Event) -> Bool {
        condition(state, event)
    }
}
