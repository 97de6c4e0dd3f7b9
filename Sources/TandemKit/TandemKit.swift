/// TandemKit: a state-driven architecture kit — store with middleware and effects, state
/// machines, typed pipelines, a feedback queue, scroll chrome and adapter-layer services.
///
/// Foundation-only and portable; no type here is a global singleton.
public enum TandemKit {
    /// The kit's version, reported by `tandem --version`-style diagnostics.
    public static let version = "0.1.0"
}
