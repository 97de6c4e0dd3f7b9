/// Decides which scroll source may report offsets: only the registered primary source of the
/// active tab (the nested-scroll-view pitfall: a cell's own scroll view, or the previous tab's
/// list, must not keep sending offsets after the tab changed).
///
/// A value type; the owner (the view layer) serializes access.
public struct PrimaryScrollFilter<Tab: Hashable & Sendable, Source: Hashable & Sendable>: Sendable, Equatable {
    private var primaries: [Tab: Source] = [:]
    private var tabsBySource: [Source: Tab] = [:]
    /// The tab on screen, `nil` before any is shown.
    public private(set) var activeTab: Tab?

    /// Creates a filter with `activeTab` shown.
    public init(activeTab: Tab? = nil) {
        self.activeTab = activeTab
    }

    /// Registers `source` as the primary scroll source of `tab`, replacing an earlier primary of
    /// that tab (a reloaded list), and moving `source` off any other tab.
    public mutating func registerPrimary(_ source: Source, tab: Tab) {
        unregister(source)
        if let previous = primaries[tab] { tabsBySource[previous] = nil }
        primaries[tab] = source
        tabsBySource[source] = tab
    }

    /// Forgets `source` (its view went away).
    public mutating func unregister(_ source: Source) {
        guard let tab = tabsBySource.removeValue(forKey: source) else { return }
        if primaries[tab] == source { primaries[tab] = nil }
    }

    /// The user switched to `tab`.
    public mutating func activate(_ tab: Tab) {
        activeTab = tab
    }

    /// The primary source of `tab`, if one is registered.
    public func primary(of tab: Tab) -> Source? { primaries[tab] }

    /// True when `source` is the primary source of the active tab.
    public func shouldReport(_ source: Source) -> Bool {
        guard let activeTab else { return false }
        return primaries[activeTab] == source
    }

    /// `offset` when `source` may report it, else `nil`.
    public func filter<Offset>(_ offset: Offset, from source: Source) -> Offset? {
        shouldReport(source) ? offset : nil
    }
}
