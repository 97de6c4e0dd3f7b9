import TandemSynchronization

/// A value that goes up and down (open connections, loaded rooms), safe from any thread.
public final class Gauge: Sendable {
    private let storage = AtomicValue<Int>(0)

    /// Creates a gauge at zero.
    public init() {}

    /// Adds `amount`, which may be negative.
    @inline(__always)
    public func add(_ amount: Int) {
        storage.add(amount, ordering: .relaxed)
    }

    /// Sets the value outright.
    public func set(_ value: Int) {
        storage.store(value, ordering: .relaxed)
    }

    /// The current value.
    public var value: Int { storage.load(ordering: .relaxed) }
}
