import TandemSynchronization

/// A monotonically increasing count, safe to bump from any thread without a lock.
public final class Counter: Sendable {
    private let storage = AtomicValue<Int>(0)

    /// Creates a counter at zero.
    public init() {}

    /// Adds `amount` (default 1).
    @inline(__always)
    public func increment(by amount: Int = 1) {
        storage.add(amount, ordering: .relaxed)
    }

    /// The current count.
    public var value: Int { storage.load(ordering: .relaxed) }
}
