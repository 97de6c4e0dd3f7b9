import TandemKit

/// Shares one scroll position the way the co-browsing article needed it: of all the scroll views on
/// screen, only the active tab's primary one reports (not a cell's nested scroll view, not the
/// previous tab's list); switching tabs stops the old tab's offsets at once; and an offset that came
/// from the room and was applied to the view is not sent back as a local change.
///
/// The view layer calls `sourceDidScroll` from its scroll callbacks, and when the room's offset changes
/// either `applyRemote` (the view jumps there) or `receiveRemote` and then `followFrame` at every
/// display frame (the view glides through the offsets as they arrive, a little behind them, see
/// `ScrollInterpolator`); `onLocalOffset` passes reported offsets on (typically `room.update { $0.contentOffset
/// = offset }`), where the session's high-rate rule sends them spaced by the link's round trip (every
/// frame on a fast link, at most 33 ms apart), the newest winning.
///
/// Not thread-safe: one owner (the view layer, on the main thread) calls it.
public final class ScrollSync<Tab: Hashable & Sendable, Source: Hashable & Sendable> {
    /// How a scroll view takes part.
    public enum Role: Sendable, Hashable {
        /// The tab's main scroll view: its offset is the one shared.
        case primary
        /// A scroll view inside the content (a carousel, a cell's text): never shared.
        case nested
    }

    private var filter: PrimaryScrollFilter<Tab, Source>
    private let onLocalOffset: (ContentOffset) -> Void
    private let tolerance: Double
    private let echoWindow: Int64
    private let now: () -> Int64
    /// The remote offset last applied to a view, and until when a report of it counts as its echo.
    private var applied: (offset: ContentOffset, source: Source, until: Int64)?
    private var applying = false
    private var lastReported: ContentOffset?
    /// The remote offsets the view follows frame by frame, and the last one received.
    private var interpolator: ScrollInterpolator
    private var lastRemote: ContentOffset?

    /// Creates a controller with `activeTab` on screen.
    /// - Parameters:
    ///   - onLocalOffset: receives each offset the user scrolled to, from the active primary source only.
    ///   - tolerance: points within which a reported offset is the echo of an applied one (views round).
    ///   - echoWindow: how long after `applyRemote` the view's report of that offset is still an echo, ns
    ///     (an animated scroll reports it late).
    ///   - smoothing: how `followFrame` moves the view through remote offsets (pass the viewport's
    ///     height as `snapDistance`: a jump of a screen or more is shown at once).
    ///   - now: monotonic nanoseconds (injected by tests).
    public init(activeTab: Tab? = nil, tolerance: Double = 0.5, echoWindow: Int64 = 500_000_000,
                smoothing: ScrollInterpolator.Configuration = ScrollInterpolator.Configuration(),
                now: @escaping () -> Int64 = SyncSession.monotonicNanoseconds,
                onLocalOffset: @escaping (ContentOffset) -> Void) {
        filter = PrimaryScrollFilter(activeTab: activeTab)
        interpolator = ScrollInterpolator(configuration: smoothing)
        self.onLocalOffset = onLocalOffset
        self.tolerance = tolerance
        self.echoWindow = echoWindow
        self.now = now
    }

    /// The tab on screen.
    public var activeTab: Tab? { filter.activeTab }

    /// Registers a scroll view of `tab` (a reloaded list replaces the tab's earlier primary).
    public func register(_ source: Source, tab: Tab, role: Role = .primary) {
        switch role {
        case .primary: filter.registerPrimary(source, tab: tab)
        case .nested: filter.unregister(source)
        }
    }

    /// Forgets a scroll view that went away.
    public func unregister(_ source: Source) {
        filter.unregister(source)
        if applied?.source == source { applied = nil }
    }

    /// The user switched tabs: from now on only `tab`'s primary reports.
    public func activate(_ tab: Tab) {
        guard tab != filter.activeTab else { return }
        filter.activate(tab)
        applied = nil
        lastReported = nil
        interpolator.reset()
        lastRemote = nil
    }

    /// A scroll view moved. Reported when it is the active tab's primary, the move is not the echo of
    /// an applied remote offset, and it differs from the last report.
    public func sourceDidScroll(_ source: Source, offset: ContentOffset) {
        guard filter.shouldReport(source), !applying else { return }
        if let applied, applied.source == source {
            if now() <= applied.until, offset.isClose(to: applied.offset, tolerance: tolerance) { return }
            self.applied = nil
        }
        if let lastReported, lastReported.isClose(to: offset, tolerance: 0) { return }
        lastReported = offset
        // The user's own finger wins: the view stops following the remote path.
        interpolator.reset()
        lastRemote = offset
        onLocalOffset(offset)
    }

    /// The room's offset is now `offset` (call it on every state change: an unchanged offset is
    /// ignored). The view gets there through `followFrame`, smoothed.
    public func receiveRemote(_ offset: ContentOffset) {
        guard offset != lastRemote else { return }
        lastRemote = offset
        interpolator.receive(offset, at: now())
    }

    /// One display frame (a `CADisplayLink` tick, a browser's animation frame): moves the active tab's
    /// primary view along the smoothed path of the offsets `receiveRemote` took, as `applyRemote` does.
    /// Returns true while the view is still on its way (keep the frames coming), false once it rests
    /// on the newest offset (stop them until the next `receiveRemote`).
    @discardableResult
    public func followFrame(current: ContentOffset? = nil, scroll: (Source, ContentOffset) -> Void) -> Bool {
        guard let frame = interpolator.frame(at: now()) else { return false }
        applyRemote(frame.offset, current: current, scroll: scroll)
        return !frame.isResting
    }

    /// The room's offset changed: `scroll` moves the active tab's primary view to it (its scroll
    /// callbacks during and after the move are not reported back). Returns false, without calling
    /// `scroll`, when no primary of the active tab is registered or the view is there already.
    @discardableResult
    public func applyRemote(_ offset: ContentOffset, current: ContentOffset? = nil, scroll: (Source, ContentOffset) -> Void) -> Bool {
        guard let tab = filter.activeTab, let source = filter.primary(of: tab) else { return false }
        if let current, current.isClose(to: offset, tolerance: tolerance) { return false }
        applied = (offset, source, now() + echoWindow)
        lastReported = offset
        applying = true
        scroll(source, offset)
        applying = false
        return true
    }
}
