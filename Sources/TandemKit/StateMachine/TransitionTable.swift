/// The declaration of a state machine: its transitions, in priority order, and the entry and
/// exit actions of its states.
///
/// A table is an immutable value; `onEntry`/`onExit` return extended copies. Two tables are equal
/// when they are the same declaration (copies of one value), because closures cannot be compared;
/// this is what lets a `StateMachine` be `Equatable` and live inside a store's state.
public struct TransitionTable<State: Hashable & Sendable, Event: Hashable & Sendable>: Sendable, Equatable {
    /// A state entry or exit action: the states it applies to and what it does.
    public struct StateAction: Sendable {
        /// The states whose entry (or exit) runs this action.
        public let states: TransitionMatcher<State>
        /// The action; it receives the change being made.
        public let run: @Sendable (StateChange<State, Event>) -> Void
    }

    private final class Storage: Sendable {
        let transitions: [Transition<State, Event>]
        let entryActions: [StateAction]
        let exitActions: [StateAction]

        init(transitions: [Transition<State, Event>], entryActions: [StateAction], exitActions: [StateAction]) {
            self.transitions = transitions
            self.entryActions = entryActions
            self.exitActions = exitActions
        }
    }

    private let storage: Storage

    /// Creates a table from `transitions`. When several transitions match a state and event,
    /// the first one (in this order) whose guard holds is taken.
    public init(_ transitions: [Transition<State, Event>]) {
        storage = Storage(transitions: transitions, entryActions: [], exitActions: [])
    }

    /// The declared transitions, in priority order.
    public var transitions: [Transition<State, Event>] { storage.transitions }

    /// Returns a copy of this table that also runs `action` whenever a state `states` selects is
    /// entered by an external transition. Entry actions run in declaration order.
    public func onEntry(_ states: TransitionMatcher<State>, _ action: @escaping @Sendable (StateChange<State, Event>) -> Void) -> Self {
        Self(storage: Storage(
            transitions: storage.transitions,
            entryActions: storage.entryActions + [StateAction(states: states, run: action)],
            exitActions: storage.exitActions
        ))
    }

    /// Returns a copy of this table that also runs `action` whenever a state `states` selects is
    /// left by an external transition. Exit actions run in declaration order.
    public func onExit(_ states: TransitionMatcher<State>, _ action: @escaping @Sendable (StateChange<State, Event>) -> Void) -> Self {
        Self(storage: Storage(
            transitions: storage.transitions,
            entryActions: storage.entryActions,
            exitActions: storage.exitActions + [StateAction(states: states, run: action)]
        ))
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// Finds the transition taken from `state` on `event` without running any action.
    ///
    /// - Throws: `invalidTransition` when no transition matches, `guardRejected` when all
    ///   matching transitions' guards fail.
    public func resolve(from state: State, on event: Event) throws(StateMachineError<State, Event>) -> (transition: Transition<State, Event>, change: StateChange<State, Event>) {
        var rejected: [String] = []
        for transition in storage.transitions where transition.from.matches(state) && transition.event.matches(event) {
            if let condition = transition.condition, !condition.allows(state, event) {
                rejected.append(condition.name)
                continue
            }
            let target = transition.target.resolve(from: state, on: event)
            return (transition, StateChange(from: state, event: event, to: target))
        }
        if rejected.isEmpty {
            throw .invalidTransition(from: state, event: event)
        }
        throw .guardRejected(from: state, event: event, guards: rejected)
    }

    /// Runs the actions of `transition` for `change`: exit actions of the old state, then the
    /// transition's own action, then entry actions of the new state (exit and entry are skipped
    /// for internal transitions).
    func perform(_ transition: Transition<State, Event>, _ change: StateChange<State, Event>) {
        if !transition.isInternal {
            for exit in storage.exitActions where exit.states.matches(change.from) { exit.run(change) }
        }
        transition.action?(change)
        if !transition.isInternal {
            for entry in storage.entryActions where entry.states.matches(change.to) { entry.run(change) }
        }
    }

    /// True when both values are the same declaration (see the type's documentation).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storage === rhs.storage
    }
}
