/// One entry of a `Podfile.lock`'s `PODS`: a pod (or subspec) at the version resolved, and what it
/// depends on.
public struct LockedPod: Sendable, Equatable {
    /// A dependency of a locked pod: a name, and the requirement the spec states (nil for any).
    public struct Dependency: Sendable, Equatable {
        /// The pod or subspec depended on.
        public var name: String
        /// The version requirement, e.g. `>= 7.6`.
        public var requirement: String?
    }

    /// The name, subspec included (`TUIChat_Swift/UI_Classic`).
    public var name: String
    /// The version resolved.
    public var version: String
    /// What it depends on.
    public var dependencies: [Dependency]
    /// The line of the lock it is on.
    public var line: Int

    /// The pod the entry belongs to: the name before the first `/`.
    public var rootName: String { String(name.prefix { $0 != "/" }) }
}
