import TandemSynchronization

/// The number of live connections accepted by one listener, shared by the connections on every loop so each
/// can give its slot back when it closes.
final class ConnectionCounter: Sendable {
    private let value = AtomicValue<Int>(0)

    /// The current number of live connections.
    var current: Int { value.load(ordering: .relaxed) }

    /// Takes a slot unless `limit` slots are taken; returns whether it did.
    func tryAcquire(limit: Int) -> Bool {
        var observed = value.load(ordering: .relaxed)
        while observed < limit {
            let (exchanged, original) = value.compareExchange(
                expected: observed, desired: observed + 1, ordering: .relaxed)
            if exchanged { return true }
            observed = original
        }
        return false
    }

    /// Gives a slot back.
    func release() {
        value.subtract(1, ordering: .relaxed)
    }
}
