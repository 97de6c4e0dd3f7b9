import TandemSynchronization

/// One registered observer of a store's state: a synchronous callback, or the feeding end of an
/// `AsyncStream`.
///
/// Only the thread draining the store calls `deliver`, one call at a time, so `deliver` needs no
/// lock of its own; `isActive` is atomic because `cancel` may come from any thread.
@usableFromInline
final class StoreObserver<State: Sendable>: Sendable {
    @usableFromInline let notify: @Sendable (State) -> Void
    private let onClose: @Sendable () -> Void
    @usableFromInline let active = AtomicValue<Bool>(true)

    init(notify: @escaping @Sendable (State) -> Void, onClose: @escaping @Sendable () -> Void = {}) {
        self.notify = notify
        self.onClose = onClose
    }

    /// Passes `state` to the observer unless it has been deactivated.
    @inlinable
    func deliver(_ state: State) {
        if active.load(ordering: .relaxed) { notify(state) }
    }

    /// Stops further deliveries.
    func deactivate() {
        active.store(false, ordering: .relaxed)
    }

    /// Stops deliveries and tells the observer no more values will come (finishes a stream).
    @usableFromInline
    func close() {
        deactivate()
        onClose()
    }
}
