/// A value of the YAML subset `Podfile.lock` is written in: block mappings and sequences of plain or
/// quoted scalars, each with the line it starts on.
indirect enum YAMLNode: Sendable, Equatable {
    case scalar(String, line: Int)
    case sequence([YAMLNode], line: Int)
    case mapping([(key: String, value: YAMLNode)], line: Int)

    /// The line the value starts on.
    var line: Int {
        switch self {
        case .scalar(_, let line), .sequence(_, let line), .mapping(_, let line): line
        }
    }

    static func == (lhs: YAMLNode, rhs: YAMLNode) -> Bool {
        switch (lhs, rhs) {
        case (.scalar(let a, let x), .scalar(let b, let y)): a == b && x == y
        case (.sequence(let a, let x), .sequence(let b, let y)): a == b && x == y
        case (.mapping(let a, let x), .mapping(let b, let y)): x == y && a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }
}
