/// A `target` (or `abstract_target`) block of a Podfile, with its nested targets.
public struct PodfileTarget: Sendable, Equatable {
    /// What a nested target takes from its parent (`inherit!`).
    public enum Inheritance: String, Sendable, Equatable {
        /// Everything: the parent's pods are linked into this target too (the default).
        case complete
        /// Only header search paths: a test target whose host app links the pods.
        case searchPaths = "search_paths"
        /// Nothing.
        case none
    }

    /// The target's name (`Pods` for the Podfile's implicit root).
    public var name: String
    /// Whether it is abstract (no Xcode target of its own; its pods go to its children).
    public var isAbstract: Bool
    /// What it takes from its parent.
    public var inheritance: Inheritance
    /// The pods declared directly in it.
    public var pods: [PodDeclaration]
    /// Targets nested in it.
    public var children: [PodfileTarget]
    /// The line it starts on (0 for the implicit root).
    public var line: Int

    /// Creates a target.
    public init(name: String, isAbstract: Bool = false, inheritance: Inheritance = .complete, pods: [PodDeclaration] = [],
                children: [PodfileTarget] = [], line: Int) {
        self.name = name
        self.isAbstract = isAbstract
        self.inheritance = inheritance
        self.pods = pods
        self.children = children
        self.line = line
    }
}
