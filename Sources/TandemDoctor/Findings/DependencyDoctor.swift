/// The rules of `tandem doctor`: each concrete target's declarations against the dependency graph the
/// lock resolved, what the installed specs make the build produce, and the packages SwiftPM resolved.
///
/// Everything is read from values, never from files: the rules are tested without a disk.
public struct DependencyDoctor: Sendable {
    /// The Podfile read.
    public let podfile: Podfile
    /// Its lock.
    public let lock: Lockfile
    /// The podspecs known (any versions; a pod's rules use the spec at its locked version).
    public let specs: [PodSpec]
    /// What SwiftPM resolved for the same app, when known.
    public let packages: PackageResolved?
    let graph: LockGraph
    private let specsByRoot: [String: PodSpec]

    /// A doctor for `podfile` and its `lock`, with the podspecs and the SwiftPM resolution when known.
    /// Without specs, the rules on what the build produces (alternative subspecs, one framework from two
    /// pods) have nothing to go on and find nothing.
    public init(podfile: Podfile, lock: Lockfile, specs: [PodSpec] = [], packages: PackageResolved? = nil) {
        self.podfile = podfile
        self.lock = lock
        self.specs = specs
        self.packages = packages
        let graph = LockGraph(lock)
        self.graph = graph
        var byRoot: [String: PodSpec] = [:]
        for spec in specs where graph.version(of: spec.name) == spec.version { byRoot[spec.name] = spec }
        specsByRoot = byRoot
    }

    /// Every finding: by target in the Podfile's order, then those of the whole Podfile, then SwiftPM's.
    public func findings() -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        for target in podfile.concreteTargets {
            findings += redundantDeclarations(in: target.name, target.pods)
            findings += duplicateProducts(in: target.name, target.pods)
        }
        findings += outOfStep()
        findings += unsatisfiedRequirements()
        findings += packagesInBothManagers()
        return findings
    }

    /// The spec of `root` at its locked version, when known.
    func spec(of root: String) -> PodSpec? { specsByRoot[root] }

    /// The shortest chain from one of `declarations` to the first node `isGoal` accepts, with the
    /// declaration it starts from.
    func chain(from declarations: [PodDeclaration], to isGoal: (String) -> Bool) -> (PodDeclaration, [String])? {
        var best: (PodDeclaration, [String])?
        for declaration in declarations {
            for start in declaration.specNames {
                guard let chain = graph.path(from: start, includingStart: true, to: isGoal) else { continue }
                if let shortest = best, shortest.1.count <= chain.count { continue }
                best = (declaration, chain)
            }
        }
        return best
    }

    // MARK: - Rules

    /// A declared pod that another declared pod of the same target reaches through the lock's graph, and
    /// that adds nothing of its own: a declaration with a version requirement, a source or chosen
    /// subspecs decides something (the app constrains what it imports itself) and is not reported.
    private func redundantDeclarations(in target: String, _ pods: [PodDeclaration]) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        for declaration in pods where declaration.requirements.isEmpty && declaration.source == nil && declaration.subspecs.isEmpty {
            let isDeclared: (String) -> Bool = declaration.subspec == nil ? { $0.podRoot == declaration.rootName } : { $0 == declaration.name }
            for other in pods where other.rootName != declaration.rootName {
                guard let (_, path) = chain(from: [other], to: isDeclared) else { continue }
                findings.append(DoctorFinding(
                    kind: .redundantDeclaration, target: target,
                    message: "`\(declaration.name)` is declared directly, but `\(other.name)` already brings it in"
                        + (podfile.usesFrameworks ? "; with use_frameworks! the same framework can end up embedded twice (\"Multiple commands produce …\")" : ""),
                    paths: [path],
                    fix: "remove `pod '\(declaration.name)'` (line \(declaration.line)) and let `\(other.name)` bring it in at the version it requires",
                    line: declaration.line))
                break
            }
        }
        return findings
    }

    /// Declared pods the lock does not hold, and pods the lock records as declared that are not any more.
    private func outOfStep() -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        let declared = podfile.concreteTargets.flatMap(\.pods)
        let lockedNames = Set(lock.pods.map(\.name)).union(lock.pods.map(\.rootName))
        var reported: Set<String> = []
        for pod in declared where !lockedNames.contains(pod.name) && reported.insert(pod.name).inserted {
            findings.append(DoctorFinding(
                kind: .notLocked, target: nil, message: "`\(pod.name)` is declared but Podfile.lock does not hold it",
                paths: [[pod.name]], fix: "run `pod install` so that the lock records it (and commit the lock)", line: pod.line))
        }
        // `pod 'Moya', :subspecs => ['Core']` is recorded as `Moya/Core`.
        let declaredNames = Set(declared.flatMap { pod in [pod.name] + pod.specNames + pod.supportSpecs.map { "\(pod.name)/\($0)" } })
        for dependency in lock.dependencies where !declaredNames.contains(dependency.name) {
            findings.append(DoctorFinding(
                kind: .noLongerDeclared, target: nil, message: "Podfile.lock records `\(dependency.name)` as declared, but the Podfile no longer declares it",
                paths: [[dependency.name]], fix: "run `pod install` to update the lock (and commit it)", line: nil))
        }
        return findings
    }

    /// Declared requirements the locked version of the pod does not satisfy (the Podfile changed after the
    /// lock was written, or the lock was edited).
    private func unsatisfiedRequirements() -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        var reported: Set<String> = []
        for pod in podfile.concreteTargets.flatMap(\.pods) where pod.source == nil && reported.insert(pod.name).inserted {
            guard let locked = lock.pods.first(where: { $0.name == pod.name }) ?? lock.pods.first(where: { $0.rootName == pod.rootName }) else { continue }
            for text in pod.requirements {
                guard let requirement = PodVersionRequirement(text), !requirement.isSatisfied(by: locked.version) else { continue }
                findings.append(DoctorFinding(
                    kind: .unsatisfiedRequirement, target: nil,
                    message: "`\(pod.name)` requires `\(text)`, but Podfile.lock holds \(locked.version)",
                    paths: [[pod.name, "\(locked.name) (\(locked.version))"]],
                    fix: "run `pod update \(pod.rootName)` (or `pod install`) so that the lock holds a version that satisfies `\(text)`",
                    line: pod.line))
                break
            }
        }
        return findings
    }
}

extension PodDeclaration {
    /// The specs the declaration asks for: itself, or each of its `:subspecs`.
    public var specNames: [String] { subspecs.isEmpty ? [name] : subspecs.map { "\(name)/\($0)" } }
}
