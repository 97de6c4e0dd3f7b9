/// Everything that can be wrong with a command line, each with a message a user can act on.
public enum CommandLineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The first argument names no known subcommand.
    case unknownCommand(String)
    /// No subcommand was given.
    case missingCommand
    /// An option the command does not declare.
    case unknownOption(String)
    /// An option that needs a value was last on the line or followed by another option.
    case missingValue(option: String)
    /// A flag was given a value with `--flag=value`.
    case unexpectedValue(option: String)
    /// A value that does not parse or is out of range.
    case invalidValue(option: String, value: String, expected: String)
    /// A required option is absent.
    case missingOption(String)
    /// A positional argument the command does not take.
    case unexpectedArgument(String)

    /// The human-readable message (without the usage line, which the caller adds).
    public var description: String {
        switch self {
        case .unknownCommand(let name): "unknown command '\(name)'"
        case .missingCommand: "no command given"
        case .unknownOption(let option): "unknown option '\(option)'"
        case .missingValue(let option): "option '--\(option)' needs a value"
        case .unexpectedValue(let option): "option '--\(option)' takes no value"
        case .invalidValue(let option, let value, let expected): "invalid value '\(value)' for '--\(option)': expected \(expected)"
        case .missingOption(let option): "missing required option '--\(option)'"
        case .unexpectedArgument(let argument): "unexpected argument '\(argument)'"
        }
    }
}
