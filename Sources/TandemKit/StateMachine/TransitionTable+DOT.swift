extension TransitionTable {
    /// The transition graph as Graphviz DOT text.
    ///
    /// Deterministic: nodes appear in order of first mention (each transition's source, then its
    /// target, in declaration order) and edges in declaration order. Nodes are named by matcher and
    /// target names; edges are labelled `event` or `event [guard]`; internal transitions are dashed.
    /// When `initial` is given, an unlabeled point node points at the node that matches it first.
    public func dot(name: String, initial: State? = nil) -> String {
        var nodes: [String] = []
        var seen: Set<String> = []
        func note(_ node: String) {
            if seen.insert(node).inserted { nodes.append(node) }
        }
        for transition in transitions {
            note(transition.from.name)
            note(transition.target.name)
        }
        var lines = ["digraph \(Self.quoted(name)) {", "  rankdir=LR;", "  node [shape=box, style=rounded];"]
        if let initial {
            let start = transitions.first(where: { $0.from.matches(initial) })?.from.name ?? String(describing: initial)
            note(start)
            lines.append("  \"__start\" [shape=point, label=\"\"];")
            lines.append("  \"__start\" -> \(Self.quoted(start));")
        }
        for node in nodes {
            lines.append("  \(Self.quoted(node));")
        }
        for transition in transitions {
            var label = transition.event.name
            if let condition = transition.condition { label += " [\(condition.name)]" }
            var attributes = "label=\(Self.quoted(label))"
            if transition.isInternal { attributes += ", style=dashed" }
            lines.append("  \(Self.quoted(transition.from.name)) -> \(Self.quoted(transition.target.name)) [\(attributes)];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func quoted(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return "\"\(escaped)\""
    }
}
