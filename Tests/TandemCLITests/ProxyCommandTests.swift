import Testing
import TandemWire
@testable import TandemCLI

@Suite struct ProxyCommandTests {
    private func parse(_ arguments: [String]) throws -> ProxyCommand.Settings {
        try ProxyCommand.settings(from: ArgumentParser.parse(arguments, for: ProxyCommand.spec))
    }

    @Test func everyFlagReachesTheFaults() throws {
        let settings = try parse([
            "--listen", "9000", "--to", "example.org:8080", "--latency", "50", "--jitter", "10",
            "--bandwidth", "256", "--drop-every", "5", "--blackhole-every", "0.25", "--stall-every", "3", "--stall", "400",
        ])
        #expect(settings == ProxyCommand.Settings(
            listenPort: 9000, targetHost: "example.org", targetPort: 8080,
            faults: .init(latency: .milliseconds(50), jitter: .milliseconds(10), bandwidthKilobytesPerSecond: 256,
                          dropEvery: .seconds(5), blackholeEvery: .milliseconds(250), stallEvery: .seconds(3), stallLength: .milliseconds(400))))
    }

    @Test func defaultsInjectNothingAndIPv6TargetsUseBrackets() throws {
        let settings = try parse(["--listen", "0", "--to", "[::1]:443"])
        #expect(settings.faults == .none)
        #expect(settings.targetHost == "::1")
        #expect(settings.targetPort == 443)
    }

    @Test(arguments: [
        (["--to", "127.0.0.1:80"], "missing required option '--listen'"),
        (["--listen", "80"], "missing required option '--to'"),
        (["--listen", "70000", "--to", "127.0.0.1:80"], "invalid value '70000' for '--listen'"),
        (["--listen", "80", "--to", "localhost"], "invalid value 'localhost' for '--to'"),
        (["--listen", "80", "--to", "localhost:0"], "invalid value 'localhost:0' for '--to'"),
        (["--listen", "80", "--to", ":80"], "invalid value ':80' for '--to'"),
        (["--listen", "80", "--to", "h:80", "--latency", "-5"], "invalid value '-5' for '--latency'"),
        (["--listen", "80", "--to", "h:80", "--jitter", "lots"], "invalid value 'lots' for '--jitter'"),
        (["--listen", "80", "--to", "h:80", "--bandwidth", "-1"], "invalid value '-1' for '--bandwidth'"),
        (["--listen", "80", "--to", "h:80", "--drop-every", "0"], "invalid value '0' for '--drop-every'"),
        (["--listen", "80", "--to", "h:80", "--blackhole-every", "soon"], "invalid value 'soon' for '--blackhole-every'"),
        (["--listen", "80", "--to", "h:80", "--latency"], "option '--latency' needs a value"),
        (["--listen", "80", "--to", "h:80", "--loss", "5"], "unknown option '--loss'"),
    ])
    func badFlagsAreUsageErrors(arguments: [String], message: String) async {
        let (status, console) = await runTandem(["proxy"] + arguments)
        #expect(status == ExitCode.usage)
        #expect(console.stderr.first?.hasPrefix("tandem proxy: error: \(message)") == true, "\(console.stderr)")
        #expect(console.stderr.count == 2)
        #expect(console.stderr.last?.hasPrefix("usage: tandem proxy") == true)
        #expect(console.stdout.isEmpty)
    }

    @Test func runPrintsWhereItListensAndWhatItInjectsThenStopsCleanly() async throws {
        let console = RecordingConsole()
        let arguments = try ArgumentParser.parse(
            ["--listen", "0", "--to", "127.0.0.1:9", "--latency", "50", "--drop-every", "2"], for: ProxyCommand.spec)
        let status = await ProxyCommand.run(arguments, context: CommandContext(console: console, environment: [:])) {
            // While it runs, its port is taken: a second proxy on the same port fails with a clear error.
            let line = console.stdout.first ?? ""
            guard let address = line.range(of: "127.0.0.1:"), let comma = line.firstIndex(of: ",") else {
                Issue.record("no address in \(line)")
                return
            }
            let port = line[address.upperBound..<comma]
            let second = RecordingConsole()
            let busy = try? ArgumentParser.parse(["--listen", String(port), "--to", "127.0.0.1:9"], for: ProxyCommand.spec)
            let code = await ProxyCommand.run(busy ?? ParsedArguments(), context: CommandContext(console: second, environment: [:])) {}
            #expect(code == ExitCode.failure)
            #expect(second.stderr.first?.hasPrefix("tandem proxy: error: cannot listen on 127.0.0.1:\(port)") == true, "\(second.stderr)")
        }
        #expect(status == ExitCode.success)
        #expect(console.stdout.count == 1)
        let line = try #require(console.stdout.first)
        #expect(line.hasPrefix("tandem proxy: listening on 127.0.0.1:"))
        #expect(line.hasSuffix(", relaying to 127.0.0.1:9 with latency 50 ms, drop every 2 s"), "\(line)")
        #expect(!line.contains("127.0.0.1:0,"))
    }
}
