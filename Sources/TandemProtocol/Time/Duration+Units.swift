/// A `Duration` in the plain units the pure cores (token buckets, the client's sync engine, room cores) and
/// the system interfaces (Dispatch, SQLite, Redis, metrics) take. Every layer keeps its time as `Duration`
/// and `ContinuousClock.Instant` and converts here, at its edge.
extension Duration {
    /// Whole nanoseconds, saturating at `Int64`'s bounds.
    package var totalNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow2 ? (whole < 0 ? .min : .max) : sum
    }

    /// Whole milliseconds, saturating at `Int64`'s bounds.
    package var totalMilliseconds: Int64 { totalNanoseconds / 1_000_000 }

    /// Seconds as a `Double` (sub-nanosecond precision is not kept).
    package var totalSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
