/// Why a state machine refused an event. The machine's state is unchanged after either error.
public enum StateMachineError<State: Hashable & Sendable, Event: Hashable & Sendable>: Error, Equatable, CustomStringConvertible {
    /// No transition is declared for `event` from state `from`.
    case invalidTransition(from: State, event: Event)
    /// Transitions exist for `event` from `from`, but every one of them was refused by its guard;
    /// `guards` names those guards in declaration order.
    case guardRejected(from: State, event: Event, guards: [String])

    /// A message naming the state, the event and, for guards, which conditions failed.
    public var description: String {
        switch self {
        case let .invalidTransition(from, event):
            return "invalid transition: no transition from state '\(from)' on event '\(event)'; declare one in the transition table or do not send this event in this state"
        case let .guardRejected(from, event, guards):
            let names = guards.map { "'\($0)'" }.joined(separator: ", ")
            return "transition refused: from state '\(from)' on event '\(event)' the guard \(names) did not hold"
        }
    }
}
