/// One `--name value` option or `--name` flag that a command accepts.
public struct OptionSpec: Sendable, Equatable {
    /// The option's long name without the leading dashes, e.g. `port`.
    public var name: String
    /// Placeholder shown in usage for the value (`PORT`); `nil` makes this a boolean flag.
    public var valueName: String?
    /// One line of help text.
    public var help: String
    /// Default value shown in help, if any.
    public var defaultValue: String?

    /// Creates an option that takes a value.
    public static func value(_ name: String, _ valueName: String, help: String, default defaultValue: String? = nil) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, defaultValue: defaultValue)
    }

    /// Creates a boolean flag.
    public static func flag(_ name: String, help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help, defaultValue: nil)
    }

    /// Whether the option is a flag (takes no value).
    public var isFlag: Bool { valueName == nil }

    var usageFragment: String {
        if let valueName { "[--\(name) \(valueName)]" } else { "[--\(name)]" }
    }
}
