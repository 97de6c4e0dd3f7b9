import TandemBench

/// `tandem bench SUITE...`: runs the benchmark suites of TandemBench (see docs/BENCHMARKS.md).
enum BenchCommand {
    /// Every suite `tandem bench` knows.
    static let suites = BenchSuite.all

    static let spec = CommandSpec(
        name: "bench",
        summary: "Run benchmarks and print ratios against references measured in the same run.",
        options: [
            .value("runs", "N", help: "Repetitions per measurement; the median is reported.", default: "5"),
            .flag("list", help: "List the suites and exit."),
        ],
        positionalName: "SUITE"
    )

    static let command = Command(spec: spec) { arguments, context in
        await run(arguments, context: context, suites: suites)
    }

    static func run(_ arguments: ParsedArguments, context: CommandContext, suites: [BenchSuite]) async -> Int32 {
        if arguments.flag("list") {
            for suite in suites { context.console.out("\(suite.name)\t\(suite.summary)") }
            return ExitCode.success
        }
        let runs: Int
        do {
            runs = try arguments.integer("runs", default: 5, in: 1...1000)
        } catch {
            context.console.err("tandem bench: error: \(error)")
            context.console.err(spec.usageLine)
            return ExitCode.usage
        }
        var selected: [BenchSuite] = []
        for name in arguments.positionals {
            guard let suite = suites.first(where: { $0.name == name }) else {
                let known = suites.isEmpty ? "none in this build" : suites.map(\.name).joined(separator: ", ")
                context.console.err("tandem bench: error: unknown suite '\(name)' (known: \(known))")
                context.console.err(spec.usageLine)
                return ExitCode.usage
            }
            selected.append(suite)
        }
        if selected.isEmpty { selected = suites }
        guard !selected.isEmpty else {
            context.console.err("tandem bench: no benchmark suites in this build")
            return ExitCode.failure
        }
        var status = ExitCode.success
        for suite in selected {
            context.console.out("== \(suite.name): \(suite.summary)")
            let console = context.console
            if !(await suite.run(runs, BenchConsole(out: { console.out($0) }, err: { console.err($0) }))) { status = ExitCode.failure }
        }
        return status
    }
}
