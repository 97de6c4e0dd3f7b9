/// Everything a command may touch besides its arguments: output and environment.
public struct CommandContext: Sendable {
    /// Where output goes.
    public var console: any Console
    /// The process environment (e.g. `TANDEM_SECRET`).
    public var environment: [String: String]

    /// Creates a context.
    public init(console: any Console, environment: [String: String]) {
        self.console = console
        self.environment = environment
    }
}

extension CommandContext {
    /// Validates a command's options with `parse`. On a `CommandLineError` it reports the precise problem
    /// and the usage line on standard error and returns nil: the caller exits with `ExitCode.usage`.
    func validated<Options>(_ spec: CommandSpec, _ parse: () throws(CommandLineError) -> Options) -> Options? {
        do {
            return try parse()
        } catch {
            console.err("tandem \(spec.name): error: \(error)")
            console.err(spec.usageLine)
            return nil
        }
    }
}

/// One `tandem` subcommand: its declared spec and the code that runs it.
public struct Command: Sendable {
    /// The declared name, summary and options.
    public var spec: CommandSpec
    /// Runs the command with already-validated arguments and returns the process exit code.
    public var run: @Sendable (ParsedArguments, CommandContext) async -> Int32

    /// Creates a command.
    public init(spec: CommandSpec, run: @escaping @Sendable (ParsedArguments, CommandContext) async -> Int32) {
        self.spec = spec
        self.run = run
    }

    /// A command whose implementation is not part of this build: it says so and exits 1,
    /// so that no script mistakes it for success.
    public static func unavailable(_ spec: CommandSpec) -> Command {
        Command(spec: spec) { _, context in
            context.console.err("tandem \(spec.name): not available in this build yet")
            return ExitCode.failure
        }
    }
}

/// The exit codes every `tandem` command uses.
public enum ExitCode {
    /// The command did what it was asked.
    public static let success: Int32 = 0
    /// The command ran but failed (e.g. undelivered patches, a failed benchmark target).
    public static let failure: Int32 = 1
    /// The command line itself was wrong: unknown command or option, bad value.
    public static let usage: Int32 = 2
}
