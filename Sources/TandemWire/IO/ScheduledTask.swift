import Synchronization

/// A handle to work scheduled on an `EventLoop` with `schedule(after:_:)`.
///
/// `cancel()` is safe from any thread. Once it returns, the work is guaranteed not to start later; work that
/// has already started runs to completion. The work runs at most once.
public final class ScheduledTask: Sendable {
    let work: @Sendable () -> Void
    private let cancelled = Atomic<Bool>(false)

    init(_ work: @escaping @Sendable () -> Void) {
        self.work = work
    }

    /// Prevents the work from running if it has not started yet. Idempotent.
    public func cancel() {
        cancelled.store(true, ordering: .releasing)
    }

    /// True once `cancel()` has been called.
    public var isCancelled: Bool {
        cancelled.load(ordering: .acquiring)
    }
}
