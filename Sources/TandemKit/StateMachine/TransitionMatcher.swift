/// Selects the states (or events) a transition applies to: one exact value, a named kind of
/// values, a set of values, or any value.
///
/// Kinds exist for values with associated data such as `navigating(countdown: Int)`: a
/// transition declared for the kind `navigating` applies whatever the countdown is. The `name`
/// is what errors and the Graphviz export show, so kinds of one machine should have distinct names.
public struct TransitionMatcher<Value: Hashable & Sendable>: Sendable {
    /// The label shown for this matcher in DOT output: the value's description, or the kind's name.
    public let name: String
    private let predicate: @Sendable (Value) -> Bool

    private init(name: String, predicate: @escaping @Sendable (Value) -> Bool) {
        self.name = name
        self.predicate = predicate
    }

    /// Matches exactly `value` (by `==`); its name is `String(describing: value)`.
    public static func exactly(_ value: Value) -> Self {
        Self(name: String(describing: value)) { $0 == value }
    }

    /// Matches every value for which `predicate` returns true, shown under `name`.
    ///
    /// The predicate must be pure: it may be evaluated any number of times, from any thread.
    public static func kind(_ name: String, _ predicate: @escaping @Sendable (Value) -> Bool) -> Self {
        Self(name: name, predicate: predicate)
    }

    /// Matches any of `values`; its name lists them joined by `|`, in the given order.
    public static func oneOf(_ values: [Value]) -> Self {
        let set = Set(values)
        return Self(name: values.map { String(describing: $0) }.joined(separator: "|")) { set.contains($0) }
    }

    /// Matches every value; shown as `*`.
    public static var any: Self {
        Self(name: "*") { _ in true }
    }

    /// Whether `value` is selected by this matcher.
    public func matches(_ value: Value) -> Bool {
        predicate(value)
    }
}
