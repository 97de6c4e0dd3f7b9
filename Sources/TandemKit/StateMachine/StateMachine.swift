/// A finite state machine: a current state plus the `TransitionTable` that says which events it
/// accepts. An event with no transition from the current state is refused with a typed error,
/// never silently ignored.
///
/// A value type: `Sendable` and `Equatable` (same state and same table declaration), so it can be
/// used standalone (`var machine = ...; try machine.handle(.submit)`) or as part of a store's
/// state driven by a reducer. Actions run synchronously inside `handle(_:)`, in the order exit →
/// transition → entry; a reducer that must stay pure can use `nextState(on:)` instead.
public struct StateMachine<State: Hashable & Sendable, Event: Hashable & Sendable>: Sendable, Equatable {
    /// The current state; it changes only through `handle(_:)`.
    public private(set) var state: State
    /// The declaration this machine follows.
    public let table: TransitionTable<State, Event>

    /// Creates a machine in `initial` following `table`. No entry action runs for the initial state.
    public init(initial: State, table: TransitionTable<State, Event>) {
        state = initial
        self.table = table
    }

    /// Handles `event`: finds the first matching transition whose guard holds, runs its actions
    /// (exit → transition → entry) and moves to its target.
    ///
    /// - Returns: the new state.
    /// - Throws: `StateMachineError.invalidTransition` or `.guardRejected`; the state is then unchanged
    ///   and no action has run.
    @discardableResult
    public mutating func handle(_ event: Event) throws(StateMachineError<State, Event>) -> State {
        let (transition, change) = try table.resolve(from: state, on: event)
        table.perform(transition, change)
        state = change.to
        return change.to
    }

    /// The state `event` would lead to, without changing the machine or running actions.
    public func nextState(on event: Event) throws(StateMachineError<State, Event>) -> State {
        try table.resolve(from: state, on: event).change.to
    }

    /// Whether `event` would be accepted in the current state (a transition matches and its guard holds).
    public func canHandle(_ event: Event) -> Bool {
        (try? table.resolve(from: state, on: event)) != nil
    }

    /// The transition graph as Graphviz DOT text, with the current state marked as the start.
    public func dot(name: String = "StateMachine") -> String {
        table.dot(name: name, initial: state)
    }
}
