/// The `tandem` program: dispatches the first argument to a subcommand.
///
/// Bad input never reaches a command: an unknown command, an unknown option or a bad value is
/// reported on standard error with the precise problem and a usage line, and exits with 2.
public struct TandemCommandLine: Sendable {
    /// The subcommands, in the order `tandem --help` lists them.
    public var commands: [Command]

    /// Creates the program with the given subcommands.
    public init(commands: [Command]) {
        self.commands = commands
    }

    /// The program with every built-in subcommand.
    public static func standard() -> TandemCommandLine {
        TandemCommandLine(commands: [
            ServeCommand.command,
            TokenCommand.command,
            InviteCommand.command,
            JoinCommand.command,
            ReplayCommand.command,
            DoctorCommand.command,
            ProxyCommand.command,
            DemoCommand.command,
            BenchCommand.command,
        ])
    }

    /// The top-level usage line.
    public var usageLine: String {
        "usage: tandem <command> [options]   (commands: \(commands.map(\.spec.name).joined(separator: ", ")))"
    }

    /// The top-level help text.
    public var helpText: String {
        let width = commands.map(\.spec.name.count).max() ?? 0
        var lines = ["Tandem: shared page state in real time, and the architecture kit around it.", "", usageLine, "", "commands:"]
        for command in commands {
            lines.append("  " + command.spec.name + String(repeating: " ", count: width - command.spec.name.count + 2) + command.spec.summary)
        }
        lines.append("")
        lines.append("Run 'tandem <command> --help' for a command's options.")
        return lines.joined(separator: "\n")
    }

    /// Runs the program on `arguments` (without the program name) and returns the exit code.
    public func run(_ arguments: [String], context: CommandContext) async -> Int32 {
        guard let name = arguments.first else {
            return usageError(.missingCommand, usage: usageLine, context: context)
        }
        if name == "--help" || name == "-h" || name == "help" {
            context.console.out(helpText)
            return ExitCode.success
        }
        guard let command = commands.first(where: { $0.spec.name == name }) else {
            return usageError(.unknownCommand(name), usage: usageLine, context: context)
        }
        let parsed: ParsedArguments
        do {
            parsed = try ArgumentParser.parse(Array(arguments.dropFirst()), for: command.spec)
        } catch {
            return usageError(error, usage: command.spec.usageLine, context: context, command: name)
        }
        if parsed.wantsHelp {
            context.console.out(command.spec.helpText)
            return ExitCode.success
        }
        return await command.run(parsed, context)
    }

    private func usageError(_ error: CommandLineError, usage: String, context: CommandContext, command: String? = nil) -> Int32 {
        let prefix = command.map { "tandem \($0)" } ?? "tandem"
        context.console.err("\(prefix): error: \(error)")
        context.console.err(usage)
        return ExitCode.usage
    }
}
