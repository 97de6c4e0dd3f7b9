import CTandemAtomics

/// One value read and changed atomically from any thread: Swift's `Atomic` as a class, for every platform
/// the package's apps run on (`Atomic` needs iOS 18 / macOS 15; this works wherever the public builds).
/// The method names and results are `Atomic`'s.
public final class AtomicValue<Value: AtomicWord>: @unchecked Sendable {
    // `@unchecked`: the word is only touched through the atomic builtins.
    @usableFromInline let word: UnsafeMutablePointer<Int64>

    /// An atomic holding `value`.
    public init(_ value: Value) {
        word = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
        word.initialize(to: value.atomicBits)
    }

    deinit { word.deallocate() }

    /// The value now.
    @inlinable
    public func load(ordering: AtomicOrdering) -> Value {
        Value(atomicBits: tandem_atomic_load(word, ordering.forLoad))
    }

    /// Replaces the value.
    @inlinable
    public func store(_ value: Value, ordering: AtomicOrdering) {
        tandem_atomic_store(word, value.atomicBits, ordering.forStore)
    }

    /// Replaces the value and returns the one it held.
    @discardableResult
    @inlinable
    public func exchange(_ value: Value, ordering: AtomicOrdering) -> Value {
        Value(atomicBits: tandem_atomic_exchange(word, value.atomicBits, ordering.order))
    }

    /// Replaces the value with `desired` if it is `expected`; returns whether it did and the value it held.
    @discardableResult
    @inlinable
    public func compareExchange(expected: Value, desired: Value, ordering: AtomicOrdering) -> (exchanged: Bool, original: Value) {
        var held = expected.atomicBits
        let exchanged = tandem_atomic_compare_exchange(word, &held, desired.atomicBits, ordering.order, ordering.forLoad)
        return (exchanged, Value(atomicBits: held))
    }
}

extension AtomicValue where Value: FixedWidthInteger {
    /// Adds `amount` (wrapping) and returns the values before and after.
    @discardableResult
    @inlinable
    public func add(_ amount: Value, ordering: AtomicOrdering) -> (oldValue: Value, newValue: Value) {
        let old = Value(atomicBits: tandem_atomic_fetch_add(word, amount.atomicBits, ordering.order))
        return (old, old &+ amount)
    }

    /// Subtracts `amount` (wrapping) and returns the values before and after.
    @discardableResult
    @inlinable
    public func subtract(_ amount: Value, ordering: AtomicOrdering) -> (oldValue: Value, newValue: Value) {
        let old = Value(atomicBits: tandem_atomic_fetch_add(word, (0 &- amount).atomicBits, ordering.order))
        return (old, old &- amount)
    }

    /// `add(_:ordering:)`, named as `Atomic` names its wrapping form.
    @discardableResult
    @inlinable
    public func wrappingAdd(_ amount: Value, ordering: AtomicOrdering) -> (oldValue: Value, newValue: Value) {
        add(amount, ordering: ordering)
    }

    /// Sets the bits of `mask` and returns the values before and after.
    @discardableResult
    @inlinable
    public func bitwiseOr(_ mask: Value, ordering: AtomicOrdering) -> (oldValue: Value, newValue: Value) {
        let old = Value(atomicBits: tandem_atomic_fetch_or(word, mask.atomicBits, ordering.order))
        return (old, old | mask)
    }

    /// Keeps only the bits of `mask` and returns the values before and after.
    @discardableResult
    @inlinable
    public func bitwiseAnd(_ mask: Value, ordering: AtomicOrdering) -> (oldValue: Value, newValue: Value) {
        let old = Value(atomicBits: tandem_atomic_fetch_and(word, mask.atomicBits, ordering.order))
        return (old, old & mask)
    }
}
