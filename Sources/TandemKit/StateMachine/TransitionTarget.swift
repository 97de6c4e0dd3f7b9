/// Where a transition leads: a fixed state, or a state computed from the current state and the
/// event (for states that carry data, e.g. `navigating(countdown: n - 1)`).
public struct TransitionTarget<State: Hashable & Sendable, Event: Hashable & Sendable>: Sendable {
    /// The label shown for the target in DOT output.
    public let name: String
    private let compute: @Sendable (State, Event) -> State

    private init(name: String, compute: @escaping @Sendable (State, Event) -> State) {
        self.name = name
        self.compute = compute
    }

    /// Always leads to `state`; shown as `String(describing: state)`.
    public static func state(_ state: State) -> Self {
        Self(name: String(describing: state)) { _, _ in state }
    }

    /// Leads to `compute(current, event)`; shown under `name` (usually the kind of state produced).
    ///
    /// The computation must be pure; it runs once per handled event, before any action.
    public static func computed(_ name: String, _ compute: @escaping @Sendable (State, Event) -> State) -> Self {
        Self(name: name, compute: compute)
    }

    /// The state this target leads to from `state` on `event`.
    public func resolve(from state: State, on event: Event) -> State {
        compute(state, event)
    }
}
