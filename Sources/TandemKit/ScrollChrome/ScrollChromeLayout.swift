/// The geometry of a custom navigation bar: controls inside the safe area, background extending
/// up under the status bar, and the scroll view's content inset that keeps content clear of both.
///
/// All values are points in the coordinate space of the view that hosts the bar and the scroll
/// view, whose top is the top of the screen.
public struct ScrollChromeLayout: Sendable, Hashable {
    /// Height of the bar's controls row (e.g. 44).
    public let barHeight: Double
    /// The safe-area inset at the top (status bar, notch or Dynamic Island).
    public let safeAreaTop: Double

    /// Creates a layout.
    ///
    /// - Throws: `ScrollChromeError` when a value is not finite or is negative.
    public init(barHeight: Double, safeAreaTop: Double) throws(ScrollChromeError) {
        try ScrollChromeConfiguration.requireFinite("barHeight", barHeight)
        try ScrollChromeConfiguration.requireFinite("safeAreaTop", safeAreaTop)
        guard barHeight >= 0 else { throw .negative(field: "barHeight", value: barHeight) }
        guard safeAreaTop >= 0 else { throw .negative(field: "safeAreaTop", value: safeAreaTop) }
        self.barHeight = barHeight
        self.safeAreaTop = safeAreaTop
    }

    /// Distance from the screen top to the bar's bottom edge: status bar plus controls row.
    public var chromeHeight: Double { safeAreaTop + barHeight }

    /// Top of the controls row: aligned with the safe area so no control sits under the status bar.
    public var controlsTop: Double { safeAreaTop }

    /// Top of the bar's background view: the screen top, so the background also covers the status bar.
    public var backgroundTop: Double { 0 }

    /// Height of the background view: from the screen top down to the bar's bottom edge.
    public var backgroundHeight: Double { chromeHeight }

    /// The `contentInset.top` to set on a scroll view pinned to the screen top so that content
    /// starts below the bar. When the system already adds the safe area (automatic content-inset
    /// adjustment), only the bar's own height is added; otherwise the whole chrome height.
    public func contentInsetTop(systemAddsSafeArea: Bool) -> Double {
        systemAddsSafeArea ? barHeight : chromeHeight
    }

    /// Converts a raw `contentOffset.y` into the scrolled distance that
    /// `ScrollChromeConfiguration.next(offset:previous:)` takes: 0 at rest, negative while
    /// pulling down. `adjustedInsetTop` is the scroll view's total top inset (0 for an immersive
    /// header that starts under the transparent bar, `chromeHeight` for content below the bar).
    public func scrolledDistance(contentOffsetY: Double, adjustedInsetTop: Double) -> Double {
        contentOffsetY + adjustedInsetTop
    }

    /// The scrolled distance at which a header of `headerHeight` that starts at the screen top has
    /// slid completely under the bar: header height minus the chrome height.
    public func fadeEnd(headerHeight: Double) -> Double {
        headerHeight - chromeHeight
    }
}
