/// The function an effect's operation calls to feed actions back into its store.
///
/// Safe to call from any task. Once the operation's task is cancelled (by id, by
/// `cancelInFlight`, or because the root store went away), calls are dropped, so a cancelled
/// request can never apply a late result.
public struct Send<Action: Sendable>: Sendable {
    private let sink: @Sendable (Action) -> Void

    /// Creates a `Send` that forwards to `sink`.
    package init(_ sink: @escaping @Sendable (Action) -> Void) {
        self.sink = sink
    }

    /// Dispatches `action`, unless the current task has been cancelled.
    public func callAsFunction(_ action: Action) {
        guard !Task.isCancelled else { return }
        sink(action)
    }
}
