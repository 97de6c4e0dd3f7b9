/// One transition as it happens: the state left, the event that caused it, the state entered.
///
/// Passed to entry, exit and transition actions, and returned by `StateMachine.handle(_:)`'s
/// lookup so a reducer can turn it into effects.
public struct StateChange<State: Hashable & Sendable, Event: Hashable & Sendable>: Sendable, Hashable {
    /// The state before the event.
    public let from: State
    /// The event that was handled.
    public let event: Event
    /// The state after the event.
    public let to: State

    /// Creates a change record.
    public init(from: State, event: Event, to: State) {
        self.from = from
        self.event = event
        self.to = to
    }
}
