import TandemSynchronization

/// Runs async operations one after another in the order they were enqueued, even when the callers
/// run concurrently: `enqueue` is synchronous, so the order is the order of the calls (a `Task` per
/// operation alone would start them in any order).
///
/// Thread-safe. An operation that never returns holds back every later one.
final class SerialTaskQueue: Sendable {
    private struct State {
        var tail: Task<Void, Never>?
        var pending = 0
    }

    private let state = Locked(State())

    /// Operations enqueued and not finished.
    var pendingCount: Int { state.withLock { $0.pending } }

    /// Runs `operation` after every operation enqueued before it has finished.
    func enqueue(_ operation: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            let previous = state.tail
            state.pending += 1
            state.tail = Task { [self] in
                await previous?.value
                await operation()
                self.state.withLock { $0.pending -= 1 }
            }
        }
    }

    /// Returns once every operation enqueued so far has finished.
    func drain() async {
        await state.withLock { $0.tail }?.value
    }
}
