/// A CocoaPods version requirement (`'~> 5.8'`, `'>= 1.2'`, `'< 2'`, `'= 1.0'`, `'1.0'`) and whether a
/// version satisfies it, by CocoaPods' rules: numeric segments compared in order (missing ones are 0),
/// a pre-release (`1.0.0-beta.1`) before its release, and `~> a.b.c` meaning `>= a.b.c` and `< a.(b+1)`.
struct PodVersionRequirement: Sendable, Equatable {
    enum Operator: String, Sendable {
        case equal = "=", notEqual = "!=", greater = ">", less = "<", greaterOrEqual = ">=", lessOrEqual = "<=", pessimistic = "~>"
    }

    let `operator`: Operator
    let version: String

    /// Reads a requirement; nil when it is not one (`:head`, or text without a version).
    init?(_ text: String) {
        var rest = Substring(text).drop { $0 == " " }
        var found = Operator.equal
        for candidate in [Operator.pessimistic, .greaterOrEqual, .lessOrEqual, .notEqual, .greater, .less, .equal] where rest.hasPrefix(candidate.rawValue) {
            found = candidate
            rest = rest.dropFirst(candidate.rawValue.count)
            break
        }
        let version = String(rest.drop { $0 == " " }).trimmingTrailingSpaces()
        guard let first = version.first, first.isNumber else { return nil }
        self.operator = found
        self.version = version
    }

    /// Whether `candidate` satisfies the requirement.
    func isSatisfied(by candidate: String) -> Bool {
        let order = Self.compare(candidate, version)
        switch self.operator {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .greater: return order > 0
        case .less: return order < 0
        case .greaterOrEqual: return order >= 0
        case .lessOrEqual: return order <= 0
        case .pessimistic:
            guard order >= 0 else { return false }
            // `~> 1.2.3` allows up to (excluding) 1.3; `~> 1.2` up to 2; `~> 1` up to 2.
            var segments = Self.numbers(version)
            if segments.count > 1 { segments.removeLast() }
            segments[segments.count - 1] += 1
            return Self.compare(candidate, segments.map(String.init).joined(separator: ".")) < 0
        }
    }

    /// The numeric segments of a version's release part.
    private static func numbers(_ version: String) -> [Int] {
        let release = version.prefix { $0 != "-" }
        return release.split(separator: ".").map { Int($0) ?? 0 }
    }

    /// -1, 0 or 1 as `a` is before, equal to or after `b`.
    static func compare(_ a: String, _ b: String) -> Int {
        let left = numbers(a), right = numbers(b)
        for index in 0..<max(left.count, right.count) {
            let x = index < left.count ? left[index] : 0, y = index < right.count ? right[index] : 0
            if x != y { return x < y ? -1 : 1 }
        }
        let leftPre = a.contains("-"), rightPre = b.contains("-")
        if leftPre != rightPre { return leftPre ? -1 : 1 }
        if leftPre {
            let x = a.drop { $0 != "-" }, y = b.drop { $0 != "-" }
            return x == y ? 0 : (x < y ? -1 : 1)
        }
        return 0
    }
}
