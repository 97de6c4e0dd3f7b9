import TandemWire

/// `tandem demo`: two scripted participants over an impaired link, with a checked verdict.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo",
        summary: "Run an in-process server and two participants over an impaired link, and report convergence.",
        options: [
            .value("duration", "S", help: "How long the participants act, in seconds.", default: "15"),
            .value("latency", "MS", help: "One-way delay of the link.", default: "60"),
            .value("jitter", "MS", help: "Random extra delay, up to this much.", default: "40"),
            .value("drop-every", "S", help: "Reset every connection each S seconds; 0 never.", default: "5"),
            .value("blackhole-every", "S", help: "Stop forwarding (half-open link) each S seconds."),
            .value("seed", "N", help: "Seed of the scripts and the jitter, to repeat a run."),
        ]
    )

    static let command = Command(spec: spec) { arguments, context in
        guard let settings = context.validated(spec, { () throws(CommandLineError) in try Self.settings(from: arguments) }) else {
            return ExitCode.usage
        }
        return await DemoRunner(settings: settings, console: context.console).run()
    }

    /// Validates every option.
    /// - Throws: `CommandLineError` for a malformed option.
    static func settings(from arguments: ParsedArguments) throws(CommandLineError) -> DemoRunner.Settings {
        var settings = DemoRunner.Settings()
        if let duration = try ProxyCommand.period("duration", in: arguments) { settings.duration = duration }
        settings.faults.latency = .milliseconds(try arguments.integer("latency", default: 60, in: 0...10_000))
        settings.faults.jitter = .milliseconds(try arguments.integer("jitter", default: 40, in: 0...10_000))
        if arguments.value("drop-every") == "0" {
            settings.faults.dropEvery = nil
        } else if let drop = try ProxyCommand.period("drop-every", in: arguments) {
            settings.faults.dropEvery = drop
        }
        settings.faults.blackholeEvery = try ProxyCommand.period("blackhole-every", in: arguments)
        if let text = arguments.value("seed") {
            guard let seed = UInt64(text) else {
                throw .invalidValue(option: "seed", value: text, expected: "a whole number from 0 to \(UInt64.max)")
            }
            settings.seed = seed
        }
        return settings
    }
}
