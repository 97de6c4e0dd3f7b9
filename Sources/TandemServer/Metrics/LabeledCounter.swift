import TandemSynchronization

/// A family of counters keyed by one label value (rejects by code, closes by code).
///
/// Label values are few and bumps are rare (error paths), so a mutex-guarded dictionary is
/// simpler than per-label atomics and costs nothing on the hot path.
public final class LabeledCounter: Sendable {
    private let counts = Locked<[String: Int]>([:])

    /// Creates an empty family.
    public init() {}

    /// Adds one to the counter for `label`.
    public func increment(_ label: String, by amount: Int = 1) {
        counts.withLock { $0[label, default: 0] += amount }
    }

    /// The counts by label, sorted by label for stable rendering.
    public func snapshot() -> [(label: String, count: Int)] {
        counts.withLock { $0.map { (label: $0.key, count: $0.value) } }.sorted { $0.label < $1.label }
    }

    /// The count for one label (zero when never bumped).
    public func value(_ label: String) -> Int {
        counts.withLock { $0[label] ?? 0 }
    }
}
