/// The rules of `tandem doctor` over a Podfile and its lock: each concrete target's declarations
/// against the dependency graph the lock resolved.
public struct DependencyDoctor: Sendable {
    /// The Podfile read.
    public let podfile: Podfile
    /// Its lock.
    public let lock: Lockfile
    /// The lock's graph: each pod or subspec → what it depends on (a whole pod → its subspecs).
    private let edges: [String: [String]]

    /// A doctor for `podfile` and its `lock`.
    public init(podfile: Podfile, lock: Lockfile) {
        self.podfile = podfile
        self.lock = lock
        var edges: [String: [String]] = [:]
        for pod in lock.pods {
            edges[pod.name, default: []] += pod.dependencies.map(\.name)
            if pod.name != pod.rootName { edges[pod.rootName, default: []].append(pod.name) }
        }
        self.edges = edges
    }

    /// Every finding, by target in the Podfile's order, then by line.
    public func findings() -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        for target in podfile.concreteTargets {
            findings += redundantDeclarations(in: target.name, target.pods)
        }
        findings += outOfStep()
        findings += unsatisfiedRequirements()
        return findings
    }

    // MARK: - Rules

    /// A declared pod that another declared pod of the same target reaches through the lock's graph.
    private func redundantDeclarations(in target: String, _ pods: [PodDeclaration]) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        for declaration in pods {
            for other in pods where other.rootName != declaration.rootName {
                guard let path = path(from: other.name, to: declaration.rootName) else { continue }
                findings.append(DoctorFinding(
                    kind: .redundantDeclaration, target: target,
                    message: "`\(declaration.name)` is declared directly, but `\(other.name)` already brings it in"
                        + (podfile.usesFrameworks ? "; with use_frameworks! the same framework can end up embedded twice (\"Multiple commands produce …\")" : ""),
                    path: path,
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
                path: [pod.name], fix: "run `pod install` so that the lock records it (and commit the lock)", line: pod.line))
        }
        let declaredNames = Set(declared.map(\.name))
        for dependency in lock.dependencies where !declaredNames.contains(dependency.name) {
            findings.append(DoctorFinding(
                kind: .noLongerDeclared, target: nil, message: "Podfile.lock records `\(dependency.name)` as declared, but the Podfile no longer declares it",
                path: [dependency.name], fix: "run `pod install` to update the lock (and commit it)", line: nil))
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
                    path: [pod.name, "\(locked.name) (\(locked.version))"],
                    fix: "run `pod update \(pod.rootName)` (or `pod install`) so that the lock holds a version that satisfies `\(text)`",
                    line: pod.line))
                break
            }
        }
        return findings
    }

    // MARK: - The graph

    /// The shortest chain from `start` (a pod or subspec) to any entry of the pod `root`, through the
    /// lock's dependencies (a pod depends on its subspecs' dependencies when declared whole).
    private func path(from start: String, to root: String) -> [String]? {
        var previous: [String: String] = [start: start]
        var queue = [start]
        var head = 0
        while head < queue.count {
            let node = queue[head]
            head += 1
            for next in edges[node] ?? [] where previous[next] == nil {
                previous[next] = node
                if String(next.prefix { $0 != "/" }) == root {
                    var chain = [next]
                    var cursor = node
                    while cursor != start {
                        chain.append(cursor)
                        cursor = previous[cursor] ?? start
                    }
                    chain.append(start)
                    return chain.reversed()
                }
                queue.append(next)
            }
        }
        return nil
    }
}
