import TandemSynchronization

/// Hands one outcome from a loop thread to the task awaiting it. Completes once: later outcomes are ignored,
/// and a waiter that arrives after the outcome gets it at once.
final class ResultWaiter<Success: Sendable, Failure: Error>: Sendable {
    private struct State {
        var result: Result<Success, Failure>?
        var continuation: CheckedContinuation<Result<Success, Failure>, Never>?
    }
    private let state = Locked(State())

    init() {}

    /// Records the outcome; later calls are ignored.
    func complete(_ result: Result<Success, Failure>) {
        let waiting = state.withLock { state -> CheckedContinuation<Result<Success, Failure>, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(returning: result)
    }

    /// Suspends until the outcome is known.
    func wait() async -> Result<Success, Failure> {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<Success, Failure>? in
                if let result = state.result { return result }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
