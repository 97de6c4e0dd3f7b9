/// How the navigation bar reacts to scrolling: where the background fade starts and ends, and how
/// wide the hysteresis band around the fade's midpoint is.
///
/// `next(offset:previous:)` is a pure function: the same inputs always give the same state, so it
/// can be tested exhaustively and shared with non-Apple front ends (see docs/scroll-chrome-cases.json).
public struct ScrollChromeConfiguration: Sendable, Hashable, Codable {
    /// Scrolled distance (points from the resting position) at which the background starts to appear.
    public let fadeStart: Double
    /// Scrolled distance at which the background is fully opaque; always greater than `fadeStart`.
    public let fadeEnd: Double
    /// Half-width, in points, of the band around the fade's midpoint (and below `fadeEnd` for the
    /// shadow) inside which the title colour, status-bar style and shadow keep their previous value.
    public let hysteresis: Double

    /// Creates a validated configuration.
    ///
    /// - Throws: `ScrollChromeError` when a value is not finite, `fadeEnd <= fadeStart`, the
    ///   hysteresis is negative, or it exceeds half the fade range.
    public init(fadeStart: Double = 0, fadeEnd: Double, hysteresis: Double = 0) throws(ScrollChromeError) {
        try Self.requireFinite("fadeStart", fadeStart)
        try Self.requireFinite("fadeEnd", fadeEnd)
        try Self.requireFinite("hysteresis", hysteresis)
        guard fadeEnd > fadeStart else { throw .emptyFadeRange(start: fadeStart, end: fadeEnd) }
        guard hysteresis >= 0 else { throw .negative(field: "hysteresis", value: hysteresis) }
        let limit = (fadeEnd - fadeStart) / 2
        guard hysteresis <= limit else { throw .hysteresisTooWide(hysteresis: hysteresis, limit: limit) }
        self.fadeStart = fadeStart
        self.fadeEnd = fadeEnd
        self.hysteresis = hysteresis
    }

    /// The configuration for a header of `headerHeight` points that starts at the top of the
    /// screen under a bar whose visible bottom edge is `layout.chromeHeight`: the background is
    /// opaque exactly when the header has slid completely under the bar.
    public init(headerHeight: Double, layout: ScrollChromeLayout, fadeStart: Double = 0, hysteresis: Double = 0) throws(ScrollChromeError) {
        try Self.requireFinite("headerHeight", headerHeight)
        try self.init(fadeStart: fadeStart, fadeEnd: layout.fadeEnd(headerHeight: headerHeight), hysteresis: hysteresis)
    }

    /// The scrolled distance halfway through the fade, where title and status style switch.
    public var midpoint: Double { fadeStart + (fadeEnd - fadeStart) / 2 }

    /// The background opacity at `offset`: linear from 0 at `fadeStart` to 1 at `fadeEnd`,
    /// clamped, and non-decreasing in `offset`. NaN counts as the resting position.
    public func alpha(at offset: Double) -> Double {
        guard !offset.isNaN else { return 0 }
        if offset <= fadeStart { return 0 }
        if offset >= fadeEnd { return 1 }
        return min(1, max(0, (offset - fadeStart) / (fadeEnd - fadeStart)))
    }

    /// The bar's state at `offset` (scrolled distance; negative while rubber-banding), given the
    /// state it showed for the previous offset.
    ///
    /// The background alpha depends on `offset` only. The title/status look switches to
    /// `.primary` once `offset >= midpoint + hysteresis` and back to `.inverted` once
    /// `offset < midpoint - hysteresis`; in between it keeps `previous`'s look, so an offset
    /// oscillating around the midpoint does not flicker. The shadow appears at `fadeEnd` and
    /// disappears below `fadeEnd - hysteresis`. With no previous state the decision is made at
    /// the midpoint and at `fadeEnd` exactly. A NaN offset returns `previous` unchanged (or the
    /// resting state).
    public func next(offset: Double, previous: NavigationBarState?) -> NavigationBarState {
        if offset.isNaN { return previous ?? next(offset: fadeStart, previous: nil) }
        let onBar: Bool
        let shadow: Bool
        if let previous {
            if previous.titleColor == .primary {
                onBar = !(offset < midpoint - hysteresis)
            } else {
                onBar = offset >= midpoint + hysteresis
            }
            shadow = previous.castsShadow ? !(offset < fadeEnd - hysteresis) : offset >= fadeEnd
        } else {
            onBar = offset >= midpoint
            shadow = offset >= fadeEnd
        }
        return NavigationBarState(
            backgroundAlpha: alpha(at: offset),
            titleColor: onBar ? .primary : .inverted,
            statusBarStyle: onBar ? .darkContent : .lightContent,
            castsShadow: shadow
        )
    }

    private enum CodingKeys: String, CodingKey { case fadeStart, fadeEnd, hysteresis }

    /// Decodes and validates a configuration (e.g. from a shared JSON file); a missing
    /// `fadeStart` or `hysteresis` is 0.
    ///
    /// - Throws: `DecodingError.dataCorrupted` carrying the `ScrollChromeError` text for invalid values.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let start = try container.decodeIfPresent(Double.self, forKey: .fadeStart) ?? 0
        let end = try container.decode(Double.self, forKey: .fadeEnd)
        let hysteresis = try container.decodeIfPresent(Double.self, forKey: .hysteresis) ?? 0
        do {
            try self.init(fadeStart: start, fadeEnd: end, hysteresis: hysteresis)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    static func requireFinite(_ field: String, _ value: Double) throws(ScrollChromeError) {
        guard value.isFinite else { throw .notFinite(field: field, value: value) }
    }
}
