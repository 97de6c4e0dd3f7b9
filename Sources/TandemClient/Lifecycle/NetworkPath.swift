/// One network path as the system reports it (`NWPath` on Apple platforms): whether it can reach anything,
/// over which interfaces, and at what cost.
public struct NetworkPath: Sendable, Hashable {
    /// Whether the path can be used at all.
    public var isSatisfied: Bool
    /// The kinds of interface it uses, in the system's order ("wifi", "cellular", "wiredEthernet"…): a
    /// different list is a different path, on which an open connection may be stranded.
    public var interfaces: [String]
    /// Whether the path costs the user money (cellular, a personal hotspot).
    public var isExpensive: Bool
    /// Whether the user asked to save data (Low Data Mode).
    public var isConstrained: Bool

    /// A path.
    public init(isSatisfied: Bool = true, interfaces: [String], isExpensive: Bool = false, isConstrained: Bool = false) {
        self.isSatisfied = isSatisfied
        self.interfaces = interfaces
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
    }

    /// Whether a connection made on `other` may not work on this path (it went away, or the interfaces differ).
    func replaces(_ other: NetworkPath) -> Bool {
        isSatisfied != other.isSatisfied || interfaces != other.interfaces
    }
}
