import TandemSynchronization

/// Keeps an observation alive: cancelling it, or releasing it, unsubscribes.
///
/// Once `cancel()` returns, the observer is not called again (a call already running on another
/// thread may still finish). Cancelling twice is harmless.
public final class ObservationToken: Sendable {
    private let onCancel: @Sendable () -> Void
    private let cancelled = AtomicValue<Bool>(false)

    /// Creates a token that runs `onCancel` exactly once, on `cancel()` or on deinit.
    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Whether `cancel()` has run.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Unsubscribes. Idempotent.
    public func cancel() {
        if cancelled.exchange(true, ordering: .acquiringAndReleasing) { return }
        onCancel()
    }

    deinit {
        cancel()
    }
}
