import Testing
import TandemCLI

@Suite struct ArgumentParserTests {
    let spec = CommandSpec(
        name: "demo",
        summary: "A test command.",
        options: [.value("port", "PORT", help: "Port.", default: "8080"), .flag("verbose", help: "Talk more.")]
    )

    @Test func parsesValuesInBothSpellingsAndFlags() throws {
        let parsed = try ArgumentParser.parse(["--port", "9000", "--verbose"], for: spec)
        #expect(parsed.value("port") == "9000")
        #expect(parsed.flag("verbose"))
        let inline = try ArgumentParser.parse(["--port=9001"], for: spec)
        #expect(inline.value("port") == "9001")
        #expect(!inline.flag("verbose"))
    }

    @Test func lastOccurrenceWins() throws {
        let parsed = try ArgumentParser.parse(["--port", "1", "--port", "2"], for: spec)
        #expect(parsed.value("port") == "2")
    }

    @Test func rejectsUnknownOption() {
        #expect(throws: CommandLineError.unknownOption("--prot")) {
            try ArgumentParser.parse(["--prot", "1"], for: spec)
        }
        #expect(throws: CommandLineError.unknownOption("-p")) {
            try ArgumentParser.parse(["-p"], for: spec)
        }
    }

    @Test func rejectsMissingValue() {
        #expect(throws: CommandLineError.missingValue(option: "port")) {
            try ArgumentParser.parse(["--port"], for: spec)
        }
        #expect(throws: CommandLineError.missingValue(option: "port")) {
            try ArgumentParser.parse(["--port", "--verbose"], for: spec)
        }
    }

    @Test func acceptsNegativeNumbersAsValues() throws {
        let parsed = try ArgumentParser.parse(["--port", "-5"], for: spec)
        #expect(parsed.value("port") == "-5")
    }

    @Test func rejectsValueOnFlagAndStrayPositionals() {
        #expect(throws: CommandLineError.unexpectedValue(option: "verbose")) {
            try ArgumentParser.parse(["--verbose=yes"], for: spec)
        }
        #expect(throws: CommandLineError.unexpectedArgument("extra")) {
            try ArgumentParser.parse(["extra"], for: spec)
        }
    }

    @Test func doubleDashEndsOptions() throws {
        let withPositionals = CommandSpec(name: "x", summary: "", options: [], positionalName: "ARG")
        let parsed = try ArgumentParser.parse(["--", "--not-an-option"], for: withPositionals)
        #expect(parsed.positionals == ["--not-an-option"])
    }

    @Test func integerValuesAreRangeChecked() throws {
        let parsed = try ArgumentParser.parse(["--port", "70000"], for: spec)
        #expect(throws: CommandLineError.invalidValue(option: "port", value: "70000", expected: "an integer from 1 to 65535")) {
            try parsed.integer("port", default: 8080, in: 1...65535)
        }
        #expect(try ParsedArguments().integer("port", default: 8080) == 8080)
    }

    @Test func usageAndHelpComeFromTheSpec() {
        #expect(spec.usageLine == "usage: tandem demo [--port PORT] [--verbose]")
        #expect(spec.helpText.contains("--port PORT"))
        #expect(spec.helpText.contains("(default: 8080)"))
    }
}
