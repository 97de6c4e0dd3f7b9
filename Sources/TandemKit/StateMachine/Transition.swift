/// One declared transition: from the states a matcher selects, on the events a matcher selects,
/// to a target, if an optional guard holds; with an optional action run between exit and entry.
public struct Transition<State: Hashable & Sendable, Event: Hashable & Sendable>: Sendable {
    /// Which states this transition leaves from.
    public let from: TransitionMatcher<State>
    /// Which events trigger it.
    public let event: TransitionMatcher<Event>
    /// The state it leads to.
    public let target: TransitionTarget<State, Event>
    /// A condition that must hold, or nil for none.
    public let condition: TransitionGuard<State, Event>?
    /// When true the transition is internal: the state's exit and entry actions do not run
    /// (e.g. a countdown tick that stays in `navigating`). External (false) is the default.
    public let isInternal: Bool
    /// Runs after the exit actions and before the entry actions.
    public let action: (@Sendable (StateChange<State, Event>) -> Void)?

    /// Declares a transition with matchers (for states or events that carry data).
    public init(
        from: TransitionMatcher<State>,
        on event: TransitionMatcher<Event>,
        to target: TransitionTarget<State, Event>,
        guard condition: TransitionGuard<State, Event>? = nil,
        internal isInternal: Bool = false,
        action: (@Sendable (StateChange<State, Event>) -> Void)? = nil
    ) {
        self.from = from
        self.event = event
        self.target = target
        self.condition = condition
        self.isInternal = isInternal
        self.action = action
    }

    /// Declares a transition from states a matcher selects on one exact event.
    public init(
        from: TransitionMatcher<State>,
        on event: Event,
        to target: TransitionTarget<State, Event>,
        guard condition: TransitionGuard<State, Event>? = nil,
        internal isInternal: Bool = false,
        action: (@Sendable (StateChange<State, Event>) -> Void)? = nil
    ) {
        self.init(from: from, on: .exactly(event), to: target, guard: condition, internal: isInternal, action: action)
    }

    /// Declares a transition between exact states on an exact event.
    public init(
        from: State,
        on event: Event,
        to target: State,
        guard condition: TransitionGuard<State, Event>? = nil,
        action: (@Sendable (StateChange<State, Event>) -> Void)? = nil
    ) {
        self.init(from: .exactly(from), on: .exactly(event), to: .state(target), guard: condition, action: action)
    }
}
