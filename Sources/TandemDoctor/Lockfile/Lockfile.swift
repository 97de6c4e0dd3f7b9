/// A `Podfile.lock` as CocoaPods 1.10–1.15 write it: the resolved pods with their dependencies, the
/// Podfile's dependencies as the lock recorded them, where each pod came from, and the checksums.
public struct Lockfile: Sendable, Equatable {
    /// `PODS`: every pod and subspec installed, at its version.
    public var pods: [LockedPod]
    /// `DEPENDENCIES`: the Podfile's declarations when the lock was written (`Name (~> 1.0)`,
    /// `Name (from \`../path\`)`), by name.
    public var dependencies: [LockedPod.Dependency]
    /// `SPEC REPOS`: repository → pods taken from it.
    public var specRepos: [String: [String]]
    /// `EXTERNAL SOURCES`: pod → its options (`:path`, `:git`, `:tag`, …).
    public var externalSources: [String: [String: String]]
    /// `CHECKOUT OPTIONS`: pod → the exact checkout of a git source.
    public var checkoutOptions: [String: [String: String]]
    /// `SPEC CHECKSUMS`: pod → checksum of its spec.
    public var checksums: [String: String]
    /// `COCOAPODS`: the version that wrote the lock.
    public var cocoapodsVersion: String?

    /// Reads the text of a `Podfile.lock`.
    /// - Throws: `DoctorInputError` naming the line of anything outside the YAML subset or the lock's shape.
    public init(parsing text: String, file: String = "Podfile.lock") throws(DoctorInputError) {
        let document = try YAMLSubsetParser(text: text, file: file).parse()
        guard case .mapping(let sections, _) = document else {
            throw DoctorInputError(file: file, line: document.line, reason: "a Podfile.lock is a mapping of sections (PODS:, DEPENDENCIES:, …)")
        }
        func section(_ name: String) -> YAMLNode? { sections.first { $0.key == name }?.value }
        func fail(_ node: YAMLNode, _ reason: String) -> DoctorInputError { DoctorInputError(file: file, line: node.line, reason: reason) }
        func list(_ node: YAMLNode?, of name: String) throws(DoctorInputError) -> [YAMLNode] {
            switch node {
            case nil: return []
            case .sequence(let items, _)?: return items
            case .scalar("", _)?: return []
            case let other?: throw fail(other, "\(name) must be a list of `- …` entries")
            }
        }
        func table(_ node: YAMLNode?, of name: String) throws(DoctorInputError) -> [(key: String, value: YAMLNode)] {
            switch node {
            case nil: return []
            case .mapping(let members, _)?: return members
            case .scalar("", _)?: return []
            case let other?: throw fail(other, "\(name) must be a mapping of `name:` entries")
            }
        }

        var pods: [LockedPod] = []
        for item in try list(section("PODS"), of: "PODS") {
            switch item {
            case .scalar(let text, let line):
                let (name, version) = try Self.nameAndVersion(text, file: file, line: line)
                pods.append(LockedPod(name: name, version: version, dependencies: [], line: line))
            case .mapping(let members, let line) where members.count == 1:
                let (name, version) = try Self.nameAndVersion(members[0].key, file: file, line: line)
                var dependencies: [LockedPod.Dependency] = []
                for dependency in try list(members[0].value, of: "the dependencies of \(name)") {
                    guard case .scalar(let text, _) = dependency else { throw fail(dependency, "a dependency is one `- Name (requirement)` line") }
                    dependencies.append(Self.dependency(text))
                }
                pods.append(LockedPod(name: name, version: version, dependencies: dependencies, line: line))
            default:
                throw fail(item, "a PODS entry is `- Name (version)`, optionally with its dependencies below it")
            }
        }
        self.pods = pods
        dependencies = try list(section("DEPENDENCIES"), of: "DEPENDENCIES").map { (item) throws(DoctorInputError) -> LockedPod.Dependency in
            guard case .scalar(let text, _) = item else { throw fail(item, "a DEPENDENCIES entry is one `- Name (requirement)` line") }
            return Self.dependency(text)
        }
        var repos: [String: [String]] = [:]
        for (repo, node) in try table(section("SPEC REPOS"), of: "SPEC REPOS") {
            repos[repo] = try list(node, of: "the pods of \(repo)").map { (item) throws(DoctorInputError) -> String in
                guard case .scalar(let name, _) = item else { throw fail(item, "a spec repo lists pod names") }
                return name
            }
        }
        specRepos = repos
        func options(_ name: String) throws(DoctorInputError) -> [String: [String: String]] {
            var result: [String: [String: String]] = [:]
            for (pod, node) in try table(section(name), of: name) {
                var values: [String: String] = [:]
                for (key, value) in try table(node, of: "the options of \(pod)") {
                    guard case .scalar(let text, _) = value else { throw fail(value, "an option of \(pod) is one `:key: value` line") }
                    values[key.hasPrefix(":") ? String(key.dropFirst()) : key] = text
                }
                result[pod] = values
            }
            return result
        }
        externalSources = try options("EXTERNAL SOURCES")
        checkoutOptions = try options("CHECKOUT OPTIONS")
        var sums: [String: String] = [:]
        for (pod, node) in try table(section("SPEC CHECKSUMS"), of: "SPEC CHECKSUMS") {
            guard case .scalar(let sum, _) = node else { throw fail(node, "a checksum is one `Name: checksum` line") }
            sums[pod] = sum
        }
        checksums = sums
        if case .scalar(let version, _)? = section("COCOAPODS") { cocoapodsVersion = version } else { cocoapodsVersion = nil }
    }

    /// `Name (1.2.3)` → name, version.
    private static func nameAndVersion(_ text: String, file: String, line: Int) throws(DoctorInputError) -> (String, String) {
        let dependency = dependency(text)
        guard let version = dependency.requirement, !dependency.name.isEmpty else {
            throw DoctorInputError(file: file, line: line, reason: "a locked pod is `Name (version)`, not `\(text)`")
        }
        return (dependency.name, version)
    }

    /// `Name (requirement)` or `Name`.
    private static func dependency(_ text: String) -> LockedPod.Dependency {
        guard text.hasSuffix(")"), let open = text.firstIndex(of: "(") else { return LockedPod.Dependency(name: text, requirement: nil) }
        let name = String(text[..<open]).trimmingTrailingSpaces()
        let requirement = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
        return LockedPod.Dependency(name: name, requirement: requirement)
    }
}
