import TandemProtocol

/// What `tandem doctor` needs of a podspec: the files a spec makes the build produce (vendored
/// frameworks, resource bundles, the pod's own framework) and where its source lives, per subspec.
///
/// Read from the JSON form CocoaPods itself stores (`pod ipc spec X.podspec`, the specs repository, the
/// download cache, `Pods/Local Podspecs`). A subspec sees its ancestors' attributes, as in CocoaPods.
public struct PodSpec: Sendable, Equatable {
    /// The full name (`TUIChat_Swift/UI_Classic` for a subspec).
    public var name: String
    /// The version (the root's, for a subspec).
    public var version: String
    /// `module_name` of the root, when it differs from the pod name.
    public var moduleName: String?
    /// What this spec itself names for every platform.
    public var files: Files
    /// What it names for one platform only (`ios`, `osx`, …), by platform.
    public var platformFiles: [String: Files]
    /// `source.git` of the root (for matching a SwiftPM package).
    public var gitSource: String?
    /// The subspecs, with full names.
    public var subspecs: [PodSpec]

    /// The attributes of a spec that decide what the build produces.
    public struct Files: Sendable, Equatable {
        /// `vendored_frameworks` paths (`.framework` or `.xcframework`).
        public var vendoredFrameworks: [String]
        /// The names of the `resource_bundles`.
        public var resourceBundles: [String]
        /// Whether `source_files` is set (the pod then builds a framework of its own with `use_frameworks!`).
        public var hasSourceFiles: Bool

        /// Creates a set of attributes.
        public init(vendoredFrameworks: [String] = [], resourceBundles: [String] = [], hasSourceFiles: Bool = false) {
            self.vendoredFrameworks = vendoredFrameworks
            self.resourceBundles = resourceBundles
            self.hasSourceFiles = hasSourceFiles
        }
    }

    /// Creates a spec.
    public init(name: String, version: String, moduleName: String? = nil, files: Files = Files(), platformFiles: [String: Files] = [:],
                gitSource: String? = nil, subspecs: [PodSpec] = []) {
        self.name = name
        self.version = version
        self.moduleName = moduleName
        self.files = files
        self.platformFiles = platformFiles
        self.gitSource = gitSource
        self.subspecs = subspecs
    }

    /// What this spec names for `platform`: its attributes for every platform and those for that one.
    public func files(for platform: String) -> Files {
        guard let scoped = platformFiles[platform] else { return files }
        return Files(vendoredFrameworks: files.vendoredFrameworks + scoped.vendoredFrameworks.filter { !files.vendoredFrameworks.contains($0) },
                     resourceBundles: files.resourceBundles + scoped.resourceBundles.filter { !files.resourceBundles.contains($0) },
                     hasSourceFiles: files.hasSourceFiles || scoped.hasSourceFiles)
    }

    /// Reads a `.podspec.json`.
    /// - Throws: `DoctorInputError` naming the line of invalid JSON or of a spec without a name or version.
    public init(json text: String, file: String = "podspec.json") throws(DoctorInputError) {
        let value = try DoctorInputError.parseJSON(text, file: file)
        guard case .object(let root) = value else { throw DoctorInputError(file: file, line: 1, reason: "a podspec is a JSON object") }
        guard case .string(let name)? = root["name"], !name.isEmpty, case .string(let version)? = root["version"] else {
            throw DoctorInputError(file: file, line: 1, reason: "a podspec names its \"name\" and \"version\"")
        }
        var gitSource: String?
        if case .object(let source)? = root["source"], case .string(let git)? = source["git"] { gitSource = git }
        var moduleName: String?
        if case .string(let module)? = root["module_name"] { moduleName = module }
        self = Self.spec(root, name: name, version: version, moduleName: moduleName, gitSource: gitSource)
    }

    /// The specs from this one down to `name`, root first (what `name` inherits from).
    public func lineage(of name: String) -> [PodSpec] {
        if self.name == name { return [self] }
        for subspec in subspecs where name == subspec.name || name.hasPrefix(subspec.name + "/") {
            let below = subspec.lineage(of: name)
            if !below.isEmpty { return [self] + below }
        }
        return []
    }

    // MARK: - Reading

    private static let platforms = ["ios", "osx", "tvos", "watchos", "visionos"]

    private static func spec(_ object: [String: JSONValue], name: String, version: String, moduleName: String?, gitSource: String?) -> PodSpec {
        var platformFiles: [String: Files] = [:]
        for platform in platforms {
            if case .object(let scoped)? = object[platform] { platformFiles[platform] = files(scoped) }
        }
        var subspecs: [PodSpec] = []
        if case .array(let items)? = object["subspecs"] {
            for case .object(let item) in items {
                guard case .string(let short)? = item["name"] else { continue }
                subspecs.append(spec(item, name: "\(name)/\(short)", version: version, moduleName: nil, gitSource: nil))
            }
        }
        return PodSpec(name: name, version: version, moduleName: moduleName, files: files(object), platformFiles: platformFiles,
                       gitSource: gitSource, subspecs: subspecs)
    }

    private static func files(_ object: [String: JSONValue]) -> Files {
        Files(vendoredFrameworks: strings(object["vendored_frameworks"]), resourceBundles: keys(object["resource_bundles"]),
              hasSourceFiles: object["source_files"] != nil)
    }

    /// A string or an array of strings.
    private static func strings(_ value: JSONValue?) -> [String] {
        switch value {
        case .string(let text)?: return [text]
        case .array(let items)?: return items.compactMap { if case .string(let text) = $0 { text } else { nil } }
        default: return []
        }
    }

    /// The keys of an object, sorted.
    private static func keys(_ value: JSONValue?) -> [String] {
        guard case .object(let members)? = value else { return [] }
        return members.keys.sorted()
    }
}
