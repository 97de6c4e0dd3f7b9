/// The unit an option states a duration in: the command line speaks whole numbers of one unit per
/// option (`--heartbeat` milliseconds, `--client-ttl` hours), the configuration holds `Duration`.
public enum DurationUnit: Sendable {
    /// Millionths of a second.
    case microseconds
    /// Thousandths of a second.
    case milliseconds
    /// Seconds.
    case seconds
    /// Hours.
    case hours
    /// Days of 24 hours.
    case days

    /// `count` of this unit.
    public func duration(_ count: Int) -> Duration {
        switch self {
        case .microseconds: .microseconds(count)
        case .milliseconds: .milliseconds(count)
        case .seconds: .seconds(count)
        case .hours: .seconds(count * 3_600)
        case .days: .seconds(count * 86_400)
        }
    }

    /// How many whole units `duration` holds (the part below one unit is dropped).
    public func count(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        switch self {
        case .microseconds: return Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)
        case .milliseconds: return Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000)
        case .seconds: return Int(seconds)
        case .hours: return Int(seconds) / 3_600
        case .days: return Int(seconds) / 86_400
        }
    }
}
