/// The declared shape of one `tandem` subcommand: its name, summary and options.
///
/// Usage and help text are derived from the spec, so what `--help` prints and what the parser
/// accepts can never disagree.
public struct CommandSpec: Sendable {
    /// The subcommand's name, e.g. `serve`.
    public var name: String
    /// One-line description shown in the command list.
    public var summary: String
    /// Options the subcommand accepts, in usage order.
    public var options: [OptionSpec]
    /// Placeholder for positional arguments (e.g. `SUITE`), or `nil` when none are accepted.
    public var positionalName: String?

    /// Creates a command spec.
    public init(name: String, summary: String, options: [OptionSpec], positionalName: String? = nil) {
        self.name = name
        self.summary = summary
        self.options = options
        self.positionalName = positionalName
    }

    /// The one-line usage, e.g. `usage: tandem serve [--host HOST] [--port PORT]`.
    public var usageLine: String {
        var parts = ["usage: tandem \(name)"]
        if let positionalName { parts.append("[\(positionalName) ...]") }
        parts += options.map(\.usageFragment)
        return parts.joined(separator: " ")
    }

    /// Full help text: summary, usage and one line per option.
    public var helpText: String {
        var lines = [summary, "", usageLine, "", "options:"]
        let width = options.map { optionLabel($0).count }.max() ?? 0
        for option in options {
            let label = optionLabel(option)
            var line = "  " + label + String(repeating: " ", count: width - label.count + 2) + option.help
            if let defaultValue = option.defaultValue { line += " (default: \(defaultValue))" }
            lines.append(line)
        }
        lines.append("  --help" + String(repeating: " ", count: max(0, width - 6 + 2)) + "Show this help.")
        return lines.joined(separator: "\n")
    }

    private func optionLabel(_ option: OptionSpec) -> String {
        if let valueName = option.valueName { "--\(option.name) \(valueName)" } else { "--\(option.name)" }
    }
}
