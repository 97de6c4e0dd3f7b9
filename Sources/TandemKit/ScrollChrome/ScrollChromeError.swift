/// A scroll-chrome configuration or layout that cannot produce a sensible bar.
public enum ScrollChromeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A dimension was NaN or infinite.
    case notFinite(field: String, value: Double)
    /// A dimension that must not be negative was negative.
    case negative(field: String, value: Double)
    /// The fade would end at or before it starts.
    case emptyFadeRange(start: Double, end: Double)
    /// The hysteresis band is wider than half the fade range, so the title could stay light on an opaque bar.
    case hysteresisTooWide(hysteresis: Double, limit: Double)

    /// What is wrong and how to fix it.
    public var description: String {
        switch self {
        case let .notFinite(field, value):
            return "\(field) is \(value); pass a finite number of points"
        case let .negative(field, value):
            return "\(field) is \(value); it must be zero or more points"
        case let .emptyFadeRange(start, end):
            return "the fade ends at \(end) but starts at \(start); the end must be greater than the start (is the header taller than the bar?)"
        case let .hysteresisTooWide(hysteresis, limit):
            return "hysteresis \(hysteresis) exceeds half the fade range (\(limit)); use a value of at most \(limit) points"
        }
    }
}
