import Synchronization

/// A queue a test reads one item at a time with a bounded wait; producers push from any thread.
public final class Mailbox<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var read = 0
        var waiter: CheckedContinuation<Item?, Never>?
        /// Counts waits, so a timeout only ends the wait that armed it, never a later one.
        var generation = 0
    }

    private let state = Mutex(State())

    /// Creates an empty mailbox.
    public init() {}

    /// Everything pushed so far, read or not.
    public var all: [Item] { state.withLock { $0.items } }

    public func push(_ item: Item) {
        let waiter: CheckedContinuation<Item?, Never>? = state.withLock { state in
            state.items.append(item)
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            state.read += 1
            return waiter
        }
        waiter?.resume(returning: item)
    }

    /// The next unread item, or `nil` if none arrives within `timeout`.
    public func next(timeout: Duration) async -> Item? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Item?, Never>) in
            let (ready, generation): (Item?, Int) = state.withLock { state in
                state.generation += 1
                if state.read < state.items.count {
                    state.read += 1
                    return (state.items[state.read - 1], state.generation)
                }
                state.waiter = continuation
                return (nil, state.generation)
            }
            if let ready {
                continuation.resume(returning: ready)
                return
            }
            Task {
                try? await Task.sleep(for: timeout)
                let expired: CheckedContinuation<Item?, Never>? = self.state.withLock { state in
                    guard state.generation == generation else { return nil }
                    defer { state.waiter = nil }
                    return state.waiter
                }
                expired?.resume(returning: nil)
            }
        }
    }
}
