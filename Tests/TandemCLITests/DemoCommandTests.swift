import Testing
import TandemProxy
import TandemWire
@testable import TandemCLI

@Suite struct DemoCommandTests {
    private func parse(_ arguments: [String]) throws -> DemoRunner.Settings {
        try DemoCommand.settings(from: ArgumentParser.parse(arguments, for: DemoCommand.spec))
    }

    @Test func defaultsAreAnImpairedLinkWithDrops() throws {
        let settings = try parse([])
        #expect(settings.duration == .seconds(15))
        #expect(settings.faults == FaultProxy.Faults(latency: .milliseconds(60), jitter: .milliseconds(40), dropEvery: .seconds(5)))
        #expect(settings.seed == nil)
    }

    @Test func everyFlagReachesTheSettings() throws {
        let settings = try parse(["--duration", "2.5", "--latency", "5", "--jitter", "1", "--drop-every", "0",
                                  "--blackhole-every", "3", "--seed", "42"])
        #expect(settings.duration == .milliseconds(2500))
        #expect(settings.faults == FaultProxy.Faults(latency: .milliseconds(5), jitter: .milliseconds(1), blackholeEvery: .seconds(3)))
        #expect(settings.seed == 42)
    }

    @Test(arguments: [
        (["--duration", "0"], "invalid value '0' for '--duration'"),
        (["--latency", "-1"], "invalid value '-1' for '--latency'"),
        (["--seed", "-3"], "invalid value '-3' for '--seed'"),
        (["--drop-every", "never"], "invalid value 'never' for '--drop-every'"),
    ])
    func badValuesAreUsageErrors(arguments: [String], message: String) async {
        let console = RecordingConsole()
        let code = await TandemCommandLine.standard().run(["demo"] + arguments, context: CommandContext(console: console, environment: [:]))
        #expect(code == ExitCode.usage)
        #expect(console.stderr.first?.contains(message) == true, "\(console.stderr)")
    }

    /// The whole demo, short: connections are reset several times while both participants write, and the
    /// verdict (checked against a third participant that joins the server directly) is convergence with
    /// nothing acknowledged lost.
    @Test func aShortRunWithRepeatedDropsConvergesAndLosesNothing() async {
        let console = RecordingConsole()
        var settings = DemoRunner.Settings()
        settings.duration = .seconds(3)
        settings.faults = FaultProxy.Faults(latency: .milliseconds(10), jitter: .milliseconds(10), dropEvery: .milliseconds(700))
        settings.stepInterval = .milliseconds(40)
        settings.seed = 7
        // No blackholes here: a long heartbeat keeps a starved parallel test run from declaring live
        // connections dead, which would only add reconnects to wait for.
        settings.heartbeatMilliseconds = 10_000
        let code = await DemoRunner(settings: settings, console: console).run()
        let lines = console.stdout
        #expect(code == ExitCode.success, "\(lines.suffix(3))")
        let verdict = lines.last ?? ""
        #expect(verdict.hasPrefix("converged at rev ") && verdict.hasSuffix("; acknowledged updates lost: 0"), "\(verdict)")
        let summary = lines.dropLast().last ?? ""
        let resets = summary.split(separator: " ").reversed().dropFirst().first.flatMap { Int($0) } ?? 0
        #expect(resets >= 2, "the link was reset during the run: \(summary)")
        let counts = summary.split(separator: " ").compactMap { Int($0) }
        #expect(counts.count >= 2 && counts[0] > 0 && counts[1] > 0, "both participants made changes: \(summary)")
        #expect(lines.contains { $0.contains("host rev") && $0.contains("guest rev") }, "live status lines")
    }
}
