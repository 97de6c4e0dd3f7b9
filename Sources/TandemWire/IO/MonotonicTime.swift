#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanoseconds on the system's monotonic clock: unaffected by wall-clock changes, so deadlines computed from it
/// never jump. Loops read it once per iteration; timers and idle deadlines compare against that reading.
package struct MonotonicTime {
    /// The current reading in nanoseconds since an arbitrary fixed point (boot, on Linux).
    package static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// A non-negative `Duration` in whole nanoseconds, saturating at `UInt64.max` (negative durations count as zero).
    package static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        // A negative duration may have seconds == 0 and negative attoseconds (e.g. -5 ms).
        if seconds < 0 || attoseconds < 0 { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (sum, overflow2) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return overflow2 ? .max : sum
    }

    /// `now + delay`, saturating instead of overflowing.
    package static func deadline(after delay: Duration, from now: UInt64) -> UInt64 {
        let (sum, overflow) = now.addingReportingOverflow(nanoseconds(delay))
        return overflow ? .max : sum
    }
}
