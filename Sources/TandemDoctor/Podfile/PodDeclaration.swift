/// One `pod` line of a Podfile.
public struct PodDeclaration: Sendable, Equatable {
    /// Where a pod comes from when not from a spec repository.
    public enum Source: Sendable, Equatable {
        /// `:path => '…'`: a local checkout.
        case path(String)
        /// `:git => '…'` with an optional `:tag`, `:branch` or `:commit`.
        case git(url: String, reference: String?)
        /// `:podspec => '…'`.
        case podspec(String)
    }

    /// The name as written, subspec included (`TUIChat_Swift/UI_Minimalist`).
    public var name: String
    /// Version requirements (`'~> 7.0'`, `'>= 1.2', '< 2'`); empty for any version.
    public var requirements: [String]
    /// Subspecs named with `:subspecs => [...]` (each also a dependency of the declaration).
    public var subspecs: [String]
    /// Test and app specs named with `:testspecs` / `:appspecs` (the lock records them as declared).
    public var supportSpecs: [String] = []
    /// Where it comes from, when not a spec repository.
    public var source: Source?
    /// The Podfile line it was declared on.
    public var line: Int

    /// Creates a declaration.
    public init(name: String, requirements: [String] = [], subspecs: [String] = [], source: Source? = nil, line: Int) {
        self.name = name
        self.requirements = requirements
        self.subspecs = subspecs
        self.source = source
        self.line = line
    }

    /// The pod the declaration belongs to: the name before the first `/`.
    public var rootName: String { String(name.prefix { $0 != "/" }) }

    /// The subspec part of the name (`UI_Minimalist`), nil for the whole pod.
    public var subspec: String? {
        guard let slash = name.firstIndex(of: "/") else { return nil }
        return String(name[name.index(after: slash)...])
    }
}
