import CTandemAtomics

/// The memory order of one atomic operation, named as Swift's `Synchronization` names them.
@frozen public struct AtomicOrdering: Sendable, Equatable {
    /// The C11 memory order (an `__ATOMIC_*` value).
    @usableFromInline let order: Int32

    @usableFromInline init(order: Int32) { self.order = order }

    /// No ordering beyond the operation's own atomicity.
    @inlinable public static var relaxed: AtomicOrdering { AtomicOrdering(order: 0) }
    /// Later reads and writes stay after this one.
    @inlinable public static var acquiring: AtomicOrdering { AtomicOrdering(order: 2) }
    /// Earlier reads and writes stay before this one.
    @inlinable public static var releasing: AtomicOrdering { AtomicOrdering(order: 3) }
    /// Both acquiring and releasing.
    @inlinable public static var acquiringAndReleasing: AtomicOrdering { AtomicOrdering(order: 4) }
    /// One total order with every other sequentially consistent operation.
    @inlinable public static var sequentiallyConsistent: AtomicOrdering { AtomicOrdering(order: 5) }

    /// The order for a load: a load cannot release, so releasing becomes relaxed and acquiring-and-releasing acquiring.
    @inlinable var forLoad: Int32 {
        switch order {
        case 3: 0
        case 4: 2
        default: order
        }
    }

    /// The order for a store: a store cannot acquire, so acquiring becomes relaxed and acquiring-and-releasing releasing.
    @inlinable var forStore: Int32 {
        switch order {
        case 2: 0
        case 4: 3
        default: order
        }
    }
}
