/// A Podfile as `tandem doctor` reads it: the targets and their pods, without running any Ruby.
public struct Podfile: Sendable, Equatable {
    /// A `platform` line.
    public struct Platform: Sendable, Equatable {
        /// `ios`, `osx`, `tvos`, `watchos`, `visionos`.
        public var name: String
        /// The deployment target, when given.
        public var version: String?
    }

    /// `platform :ios, '13.0'`, when declared.
    public var platform: Platform?
    /// Whether `use_frameworks!` is on (pods become frameworks, and a framework embedded twice fails the build).
    public var usesFrameworks: Bool
    /// The spec repositories of `source` lines.
    public var sources: [String]
    /// The implicit abstract root: pods declared outside any block, and every target as its children.
    public var root: PodfileTarget

    /// Creates a Podfile model.
    public init(usesFrameworks: Bool = false, sources: [String] = [], root: PodfileTarget = PodfileTarget(name: "Pods", isAbstract: true, line: 0)) {
        self.usesFrameworks = usesFrameworks
        self.sources = sources
        self.root = root
    }

    /// Parses the text of a Podfile (the common Ruby DSL subset; see `PodfileParser`).
    /// - Throws: `DoctorInputError` naming the line of anything outside that subset.
    public init(parsing text: String, file: String = "Podfile") throws(DoctorInputError) {
        self = try PodfileParser(text: text, file: file).parse()
    }

    /// Every concrete (not abstract) target with the pods it links: its own and, through complete
    /// inheritance, its ancestors'; by name.
    public var concreteTargets: [(name: String, pods: [PodDeclaration])] {
        var result: [(name: String, pods: [PodDeclaration])] = []
        func visit(_ target: PodfileTarget, inherited: [PodDeclaration]) {
            let own = (target.inheritance == .complete ? inherited : []) + target.pods
            if !target.isAbstract { result.append((target.name, own)) }
            for child in target.children { visit(child, inherited: own) }
        }
        visit(root, inherited: [])
        return result
    }
}
