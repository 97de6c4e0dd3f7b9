/// The status-bar content style that goes with the bar's current look.
public enum StatusBarStyle: String, Sendable, Hashable, Codable, CaseIterable {
    /// Light status-bar text, for a dark header image behind a transparent bar.
    case lightContent
    /// Dark status-bar text, for the opaque (light) bar background.
    case darkContent
}
