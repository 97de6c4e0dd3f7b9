/// Parses the arguments that follow a subcommand against its `CommandSpec`.
///
/// Accepts `--name value`, `--name=value`, flags, `--help`/`-h`, and positionals when the spec
/// declares them. `--` ends option parsing. Parsing is pure: no I/O, no global state.
public enum ArgumentParser {
    /// Parses `arguments` (without the program and subcommand names).
    /// - Throws: `CommandLineError` describing the first problem found.
    public static func parse(_ arguments: [String], for spec: CommandSpec) throws(CommandLineError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                guard spec.positionalName != nil else { throw .unexpectedArgument(argument) }
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            if argument == "--help" || argument == "-h" { parsed.wantsHelp = true; continue }
            guard argument.hasPrefix("--") else { throw .unknownOption(argument) }

            let body = argument.dropFirst(2)
            let name: String
            var inlineValue: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
            }
            guard let option = spec.options.first(where: { $0.name == name }) else {
                throw .unknownOption("--" + name)
            }
            if option.isFlag {
                if inlineValue != nil { throw .unexpectedValue(option: name) }
                parsed.flags.insert(name)
                continue
            }
            if let inlineValue {
                parsed.values[name] = inlineValue
                parsed.repeated[name, default: []].append(inlineValue)
            } else {
                // A value may start with "-" only when it is a number (e.g. a negative offset).
                guard index < arguments.count,
                      !arguments[index].hasPrefix("--"),
                      !(arguments[index].hasPrefix("-") && Double(arguments[index]) == nil)
                else { throw .missingValue(option: name) }
                parsed.values[name] = arguments[index]
                parsed.repeated[name, default: []].append(arguments[index])
                index += 1
            }
        }
        return parsed
    }
}
