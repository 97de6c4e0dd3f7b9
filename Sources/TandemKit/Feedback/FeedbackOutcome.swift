/// How a queued message ended; every `show` returns (or calls its completion with) exactly one.
public enum FeedbackOutcome: String, Sendable, Hashable, CustomStringConvertible {
    /// It was shown for its full duration and its dismissal animation has finished.
    case expired
    /// A loading HUD was replaced by a newer message; its dismissal animation has finished.
    case replaced
    /// It was dismissed early through `FeedbackQueue.dismiss(_:)`; its dismissal animation has finished.
    case dismissed
    /// It was withdrawn through `FeedbackQueue.dismiss(_:)` before it was ever shown.
    case discarded

    /// The case name.
    public var description: String { rawValue }
}
