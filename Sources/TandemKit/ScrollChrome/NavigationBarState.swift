/// How the navigation bar looks at one scroll position: the value a view renders and nothing else.
///
/// Produced by `ScrollChromeConfiguration.next(offset:previous:)`; title colour and status-bar
/// style always change together, so a rendered bar never mixes the two looks.
public struct NavigationBarState: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Opacity of the bar's background (which extends under the status bar), always within 0…1.
    public var backgroundAlpha: Double
    /// The colour role of the title and bar buttons.
    public var titleColor: TitleColorRole
    /// The status-bar style that matches `titleColor`.
    public var statusBarStyle: StatusBarStyle
    /// Whether the bar draws its bottom shadow (only once the background is fully opaque).
    public var castsShadow: Bool

    /// Creates a state; `next(offset:previous:)` is the usual way to get one.
    public init(backgroundAlpha: Double, titleColor: TitleColorRole, statusBarStyle: StatusBarStyle, castsShadow: Bool) {
        self.backgroundAlpha = backgroundAlpha
        self.titleColor = titleColor
        self.statusBarStyle = statusBarStyle
        self.castsShadow = castsShadow
    }

    /// E.g. `alpha 0.25, inverted title, lightContent, no shadow`.
    public var description: String {
        "alpha \(backgroundAlpha), \(titleColor) title, \(statusBarStyle), \(castsShadow ? "shadow" : "no shadow")"
    }
}
