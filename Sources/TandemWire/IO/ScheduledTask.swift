import TandemSynchronization

/// A handle to work scheduled on an `EventLoop` with `schedule(after:_:)`.
///
/// `cancel()` is safe from any thread. Once it returns, the work is guaranteed not to start later; work that
/// has already started runs to completion. The work runs at most once.
///
/// Memory: the work closure is released as soon as the task is cancelled or has run, not when its deadline
/// passes, so a timer may capture what it acts on strongly (a connection, a session) without keeping it alive
/// after the timer is cancelled. That lets hot objects avoid `weak` captures, whose side tables slow every
/// retain and release of the object for its whole life.
package final class ScheduledTask: Sendable {
    private let work: Locked<(@Sendable () -> Void)?>
    private let cancelled = AtomicValue<Bool>(false)

    init(_ work: @escaping @Sendable () -> Void) {
        self.work = Locked(work)
    }

    /// Prevents the work from running if it has not started yet, and releases it. Idempotent.
    package func cancel() {
        cancelled.store(true, ordering: .releasing)
        let released = work.withLock { work -> (@Sendable () -> Void)? in
            defer { work = nil }
            return work
        }
        // Captures are released here, outside the lock (their deinit may schedule or cancel other work).
        _ = released
    }

    /// True once `cancel()` has been called.
    package var isCancelled: Bool {
        cancelled.load(ordering: .acquiring)
    }

    /// Runs the work unless it was cancelled or already ran. Called on the loop thread.
    func run() {
        let pending = work.withLock { work -> (@Sendable () -> Void)? in
            defer { work = nil }
            return work
        }
        pending?()
    }
}
