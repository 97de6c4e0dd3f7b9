/// The identity under which an effect's async operations are registered for cancellation.
///
/// Any `Hashable & Sendable` value works; two ids are equal when their values are equal and of
/// the same type.
public struct EffectID: Hashable, @unchecked Sendable {
    // `AnyHashable` is only ever built from a `Sendable` value, so sharing it is safe.
    private let base: AnyHashable

    /// Wraps `value` as an id.
    public init(_ value: some Hashable & Sendable) {
        base = AnyHashable(value)
    }
}
