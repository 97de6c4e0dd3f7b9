/// The options and positional arguments of one command line, checked against a `CommandSpec`.
public struct ParsedArguments: Sendable, Equatable {
    /// Values of options given with a value, by option name; the last occurrence wins.
    public var values: [String: String]
    /// Every value of each option given with a value, in order (for options that may be repeated).
    public var repeated: [String: [String]] = [:]
    /// Names of flags that were present.
    public var flags: Set<String>
    /// Positional arguments in order.
    public var positionals: [String]
    /// Whether `--help` or `-h` was given.
    public var wantsHelp: Bool

    /// Creates parsed arguments (mostly for tests).
    public init(values: [String: String] = [:], flags: Set<String> = [], positionals: [String] = [], wantsHelp: Bool = false) {
        self.values = values
        self.flags = flags
        self.positionals = positionals
        self.wantsHelp = wantsHelp
    }

    /// The raw value of an option, or `nil` when it was not given.
    public func value(_ name: String) -> String? { values[name] }

    /// Every value given for `name`, in order (empty when absent).
    public func all(_ name: String) -> [String] { repeated[name] ?? [] }

    /// Whether the flag was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of an option parsed as an integer within `range`, or `defaultValue` when absent.
    /// - Throws: `CommandLineError.invalidValue` when the text is not an integer in range.
    public func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int> = Int.min...Int.max) throws(CommandLineError) -> Int {
        guard let text = values[name] else { return defaultValue }
        guard let number = Int(text), range.contains(number) else {
            throw .invalidValue(option: name, value: text, expected: "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// The value of an option stating a duration as a whole number of `unit`s within `range`, or
    /// `defaultValue` when absent.
    /// - Throws: `CommandLineError.invalidValue` when the text is not an integer in range.
    public func duration(_ name: String, in unit: DurationUnit, default defaultValue: Duration, range: ClosedRange<Int>) throws(CommandLineError) -> Duration {
        guard values[name] != nil else { return defaultValue }
        return unit.duration(try integer(name, default: 0, in: range))
    }

    /// The value of an option that must be one of `choices`, or `defaultValue` when absent.
    /// - Throws: `CommandLineError.invalidValue` naming the accepted choices.
    public func choice(_ name: String, default defaultValue: String, among choices: [String]) throws(CommandLineError) -> String {
        guard let text = values[name] else { return defaultValue }
        guard choices.contains(text) else {
            throw .invalidValue(option: name, value: text, expected: "one of " + choices.joined(separator: ", "))
        }
        return text
    }

    /// The value of a required option.
    /// - Throws: `CommandLineError.missingOption` when it was not given.
    public func required(_ name: String) throws(CommandLineError) -> String {
        guard let text = values[name] else { throw .missingOption(name) }
        return text
    }
}
