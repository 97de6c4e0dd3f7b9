import Testing
import TandemCLI

@Suite struct CommandLineTests {
    @Test func everySubcommandHasHelp() async {
        for name in ["serve", "token", "join", "replay", "doctor", "proxy", "demo", "bench"] {
            let (status, console) = await runTandem([name, "--help"])
            #expect(status == ExitCode.success, "tandem \(name) --help")
            #expect(console.stdout.joined(separator: "\n").contains("usage: tandem \(name)"))
        }
    }

    @Test func topLevelHelpListsCommands() async {
        let (status, console) = await runTandem(["--help"])
        #expect(status == ExitCode.success)
        let text = console.stdout.joined(separator: "\n")
        for name in ["serve", "token", "join", "replay", "doctor", "proxy", "demo", "bench"] { #expect(text.contains(name)) }
    }

    @Test func unknownCommandIsAUsageError() async {
        let (status, console) = await runTandem(["serv"])
        #expect(status == ExitCode.usage)
        #expect(console.stderr.first == "tandem: error: unknown command 'serv'")
        #expect(console.stderr.last?.hasPrefix("usage: tandem") == true)
    }

    @Test func missingCommandIsAUsageError() async {
        let (status, console) = await runTandem([])
        #expect(status == ExitCode.usage)
        #expect(console.stderr.first == "tandem: error: no command given")
    }

    @Test func unknownFlagNamesTheFlagAndShowsTheCommandsUsage() async {
        let (status, console) = await runTandem(["serve", "--prot", "80"])
        #expect(status == ExitCode.usage)
        #expect(console.stderr.count == 2)
        #expect(console.stderr.first == "tandem serve: error: unknown option '--prot'")
        #expect(console.stderr.last?.hasPrefix("usage: tandem serve [--host HOST] [--port PORT] [--data DIR]") == true)
    }

    @Test func benchRejectsUnknownSuite() async {
        let (status, console) = await runTandem(["bench", "nosuch"])
        #expect(status == ExitCode.usage)
        #expect(console.stderr.first?.contains("unknown suite 'nosuch'") == true)
    }

    @Test func benchRejectsBadRunCount() async {
        let (status, console) = await runTandem(["bench", "--runs", "zero"])
        #expect(status == ExitCode.usage)
        #expect(console.stderr.first?.contains("invalid value 'zero' for '--runs'") == true)
    }
}
