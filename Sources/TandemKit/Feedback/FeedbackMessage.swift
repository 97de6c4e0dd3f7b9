/// One toast or HUD: a style, the text, and optionally how long it stays visible.
///
/// Two messages are identical (and coalesce when queued back to back) when style, text and
/// duration are equal.
public struct FeedbackMessage: Sendable, Hashable, CustomStringConvertible {
    /// The kind of feedback.
    public var style: FeedbackStyle
    /// The text shown to the user.
    public var text: String
    /// How long the message stays fully visible; `nil` means the queue's `FeedbackTimings`
    /// decide (and a loading HUD stays until replaced or dismissed).
    public var duration: Duration?

    /// Creates a message.
    public init(style: FeedbackStyle, text: String, duration: Duration? = nil) {
        self.style = style
        self.text = text
        self.duration = duration
    }

    /// A success toast.
    public static func success(_ text: String, duration: Duration? = nil) -> FeedbackMessage {
        FeedbackMessage(style: .success, text: text, duration: duration)
    }

    /// An error toast (high priority by default).
    public static func error(_ text: String, duration: Duration? = nil) -> FeedbackMessage {
        FeedbackMessage(style: .error, text: text, duration: duration)
    }

    /// An informational toast.
    public static func info(_ text: String, duration: Duration? = nil) -> FeedbackMessage {
        FeedbackMessage(style: .info, text: text, duration: duration)
    }

    /// A loading HUD that stays until the next message replaces it or it is dismissed.
    public static func loading(_ text: String) -> FeedbackMessage {
        FeedbackMessage(style: .loading, text: text)
    }

    /// The priority a message gets when the caller names none: errors are `.high`.
    public var defaultPriority: FeedbackPriority { style == .error ? .high : .normal }

    /// E.g. `success "Saved"`.
    public var description: String { "\(style) \"\(text)\"" }
}
