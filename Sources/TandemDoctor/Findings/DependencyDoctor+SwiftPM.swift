extension DependencyDoctor {
    /// Libraries the app takes from both CocoaPods and SwiftPM: two copies linked into one app (duplicate
    /// classes at run time, or two versions of one library), found by name or by repository.
    func packagesInBothManagers() -> [DoctorFinding] {
        guard let packages else { return [] }
        var findings: [DoctorFinding] = []
        let roots = Self.unique(lock.pods.map(\.rootName))
        for pin in packages.pins {
            let location = Self.repository(pin.location)
            guard let root = roots.first(where: { root in
                Self.comparableName(root) == Self.comparableName(pin.identity) || gitSource(of: root).map(Self.repository) == location
            }) else { continue }
            let podVersion = graph.version(of: root) ?? "?"
            let packageVersion = pin.version ?? pin.revision.map { "revision \($0.prefix(7))" } ?? "a branch"
            let twoVersions = pin.version != nil && pin.version != podVersion
            var chainToPod: (PodDeclaration, [String])?
            for target in podfile.concreteTargets {
                if let found = chain(from: target.pods, to: { $0.podRoot == root }) { chainToPod = found; break }
            }
            let removal: String
            if let (declaration, chain) = chainToPod {
                removal = chain.count == 1
                    ? "remove `pod '\(declaration.name)'` (line \(declaration.line))"
                    : "stop taking `\(declaration.name)` from CocoaPods (line \(declaration.line), which brings in `\(root)`)"
            } else {
                removal = "remove `\(root)` from the Podfile"
            }
            findings.append(DoctorFinding(
                kind: .packageInBothManagers, target: nil,
                message: "`\(root)` comes from both CocoaPods (\(podVersion)) and SwiftPM (`\(pin.identity)` \(packageVersion)): "
                    + (twoVersions ? "two versions of one library in one app" : "two copies of one library in one app"),
                paths: [(chainToPod?.1 ?? [root]) + ["\(root) (\(podVersion), CocoaPods)"], ["\(pin.identity) (\(packageVersion), SwiftPM)"]],
                fix: "take it from one package manager: \(removal), or remove the package `\(pin.identity)` from the Xcode project",
                line: chainToPod?.0.line))
        }
        return findings
    }

    /// Where a pod's sources come from, when the lock or its spec says.
    private func gitSource(of root: String) -> String? {
        lock.checkoutOptions[root]?["git"] ?? lock.externalSources[root]?["git"] ?? spec(of: root)?.gitSource
    }

    /// A name reduced for comparison across the two managers: lowercase letters and digits only
    /// (`swift-protobuf` and `SwiftProtobuf` compare equal).
    static func comparableName(_ name: String) -> String {
        String(name.lowercased().filter { $0.isLetter || $0.isNumber })
    }

    /// A repository URL reduced for comparison: no scheme, user, `.git` or trailing `/`, the scp form
    /// (`git@host:owner/repo`) read as `host/owner/repo`, lowercase.
    static func repository(_ url: String) -> String {
        var text = url.lowercased()
        if let scheme = text.firstRange(of: "://") { text = String(text[scheme.upperBound...]) }
        else if let colon = text.firstIndex(of: ":") { text.replaceSubrange(colon...colon, with: "/") }
        if let at = text.firstIndex(of: "@"), !text[..<at].contains("/") { text = String(text[text.index(after: at)...]) }
        while text.hasSuffix("/") { text.removeLast() }
        if text.hasSuffix(".git") { text.removeLast(4) }
        return text
    }
}
