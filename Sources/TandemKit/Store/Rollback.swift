/// The exact value one slice of the state had before an optimistic change, and where it lives.
///
/// Restoring writes that value back — it never recomputes an inverse of the change, so a lossy
/// change (a clamped counter, a toggled flag on inconsistent data) is undone exactly, and the
/// rest of the state (changed meanwhile by other actions) is left alone.
public struct Rollback<Root, Value: Sendable>: Sendable {
    /// The slice that was changed.
    public let slice: any WritableKeyPath<Root, Value> & Sendable
    /// Its value before the change.
    public let previousValue: Value

    /// Captures `slice`'s value before a change.
    public init(slice: any WritableKeyPath<Root, Value> & Sendable, previousValue: Value) {
        self.slice = slice
        self.previousValue = previousValue
    }

    /// Writes the previous value back into `state`.
    public func restore(in state: inout Root) {
        state[keyPath: slice] = previousValue
    }
}

extension Rollback: Equatable where Value: Equatable {
    /// Two rollbacks are equal when they restore the same value into the same slice.
    public static func == (lhs: Rollback, rhs: Rollback) -> Bool {
        (lhs.slice as AnyKeyPath) == (rhs.slice as AnyKeyPath) && lhs.previousValue == rhs.previousValue
    }
}

extension Rollback: CustomStringConvertible {
    /// A readable summary such as `Rollback(\Profile.follow → FollowState(...))`.
    public var description: String {
        "Rollback(\(slice as AnyKeyPath) → \(previousValue))"
    }
}
