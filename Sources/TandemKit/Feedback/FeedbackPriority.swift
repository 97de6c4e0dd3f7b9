/// Where a message goes in the queue: higher priorities are shown before waiting lower ones;
/// equal priorities keep their submission order.
public enum FeedbackPriority: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// The default for success, info and loading messages.
    case normal = 0
    /// The default for errors: jumps ahead of every waiting `.normal` message.
    case high = 1

    /// Orders by urgency.
    public static func < (lhs: FeedbackPriority, rhs: FeedbackPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
