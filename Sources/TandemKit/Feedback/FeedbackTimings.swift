/// How long each style of message stays fully visible when the message names no duration.
public struct FeedbackTimings: Sendable, Hashable {
    /// Display time of a success toast.
    public var success: Duration
    /// Display time of an error toast.
    public var error: Duration
    /// Display time of an informational toast.
    public var info: Duration

    /// Creates timings.
    public init(success: Duration = .milliseconds(1500), error: Duration = .milliseconds(2500), info: Duration = .seconds(2)) {
        self.success = success
        self.error = error
        self.info = info
    }

    /// 1.5 s for success, 2.5 s for errors, 2 s for information.
    public static let standard = FeedbackTimings()

    /// How long `message` stays visible: its own duration, else the style's; `nil` (until replaced
    /// or dismissed) for a loading HUD without a duration. Negative durations count as zero.
    public func displayDuration(for message: FeedbackMessage) -> Duration? {
        let chosen: Duration?
        if let duration = message.duration {
            chosen = duration
        } else {
            switch message.style {
            case .success: chosen = success
            case .error: chosen = error
            case .info: chosen = info
            case .loading: chosen = nil
            }
        }
        return chosen.map { max($0, .zero) }
    }
}
