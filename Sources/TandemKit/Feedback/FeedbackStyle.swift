/// What kind of feedback a message is; front ends pick icon and colours from it.
public enum FeedbackStyle: String, Sendable, Hashable, CaseIterable {
    /// An operation succeeded ("Saved").
    case success
    /// An operation failed; shown ahead of waiting normal-priority messages.
    case error
    /// Neutral information.
    case info
    /// A HUD that stays until something replaces or dismisses it ("Submitting…").
    case loading
}
