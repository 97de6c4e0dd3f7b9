/// What a room shows about the network it runs on, for an app that adapts (fewer live cursors on a
/// constrained path, a note on an expensive one).
public struct NetworkConditions: Sendable, Hashable {
    /// Whether the system reports a usable path (true until it says otherwise).
    public var isAvailable = true
    /// Whether the path costs the user money (cellular, a personal hotspot).
    public var isExpensive = false
    /// Whether the user asked to save data (Low Data Mode).
    public var isConstrained = false

    /// Conditions; by default a usable, free, unconstrained path (what is assumed before the system says).
    public init(isAvailable: Bool = true, isExpensive: Bool = false, isConstrained: Bool = false) {
        self.isAvailable = isAvailable
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
    }

    init(_ path: NetworkPath) {
        self.init(isAvailable: path.isSatisfied, isExpensive: path.isExpensive, isConstrained: path.isConstrained)
    }
}
