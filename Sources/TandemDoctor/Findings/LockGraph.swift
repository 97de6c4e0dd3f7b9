/// The dependency graph a `Podfile.lock` resolved: each pod or subspec → what it depends on.
///
/// A pod with an entry of its own depends on what the entry lists (its default subspecs among them); a
/// pod the lock holds only as subspecs stands for all of them.
struct LockGraph: Sendable {
    private let edges: [String: [String]]
    private let versions: [String: String]

    init(_ lock: Lockfile) {
        var edges: [String: [String]] = [:]
        let entries = Set(lock.pods.map(\.name))
        var versions: [String: String] = [:]
        for pod in lock.pods {
            edges[pod.name, default: []] += pod.dependencies.map(\.name)
            if pod.name != pod.rootName && !entries.contains(pod.rootName) { edges[pod.rootName, default: []].append(pod.name) }
            versions[pod.name] = pod.version
            if versions[pod.rootName] == nil { versions[pod.rootName] = pod.version }
        }
        self.edges = edges
        self.versions = versions
    }

    /// The locked version of a pod or subspec.
    func version(of name: String) -> String? { versions[name] }

    /// Everything `starts` bring in, themselves included, in breadth-first order.
    func reachable(from starts: [String]) -> [String] {
        var seen = Set(starts)
        var order = starts
        var head = 0
        while head < order.count {
            for next in edges[order[head]] ?? [] where seen.insert(next).inserted { order.append(next) }
            head += 1
        }
        return order
    }

    /// The shortest chain from `start` to the first node that `isGoal` accepts (`start` itself
    /// included when `includingStart`).
    func path(from start: String, includingStart: Bool = false, to isGoal: (String) -> Bool) -> [String]? {
        if includingStart && isGoal(start) { return [start] }
        var previous: [String: String] = [start: start]
        var queue = [start]
        var head = 0
        while head < queue.count {
            let node = queue[head]
            head += 1
            for next in edges[node] ?? [] where previous[next] == nil {
                previous[next] = node
                if isGoal(next) {
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

extension String {
    /// The pod a pod or subspec name belongs to: the part before the first `/`.
    var podRoot: String { String(prefix { $0 != "/" }) }
}
