/// How long a registered service instance lives.
public enum ServiceScope: String, Sendable, Hashable, CaseIterable {
    /// One instance per container, created by the first `resolve` (the factory runs exactly once,
    /// even under concurrent first resolves) and returned to every later one.
    case singleton
    /// A new instance from the factory on every `resolve`.
    case transient
}
