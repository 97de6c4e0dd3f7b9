import Testing
@testable import TandemCLI

/// An option's whole number of its unit and the configuration's `Duration` convert both ways without loss.
@Suite struct DurationUnitTests {
    @Test(arguments: [(DurationUnit.microseconds, Duration.microseconds(5_000)), (.milliseconds, .seconds(10)), (.seconds, .seconds(3_600)),
                      (.hours, .seconds(720 * 3_600)), (.days, .seconds(36_500 * 86_400))])
    func aWholeNumberOfUnitsRoundTrips(unit: DurationUnit, duration: Duration) {
        #expect(unit.duration(unit.count(duration)) == duration)
    }

    @Test func partsBelowOneUnitAreDroppedAndCountsConvert() {
        #expect(DurationUnit.milliseconds.count(.microseconds(1_999)) == 1)
        #expect(DurationUnit.hours.count(.seconds(7_199)) == 1)
        #expect(DurationUnit.days.duration(2) == .seconds(172_800))
        #expect(DurationUnit.microseconds.duration(500) == .microseconds(500))
    }

    @Test func anOptionGivesItsDurationAndAnAbsentOneTheDefault() throws {
        let given = ParsedArguments(values: ["heartbeat": "250"])
        #expect(try given.duration("heartbeat", in: .milliseconds, default: .seconds(10), range: 100...1_000) == .milliseconds(250))
        #expect(try ParsedArguments().duration("heartbeat", in: .milliseconds, default: .seconds(10), range: 100...1_000) == .seconds(10))
        #expect(throws: CommandLineError.self) { try ParsedArguments(values: ["heartbeat": "5"]).duration("heartbeat", in: .milliseconds, default: .seconds(10), range: 100...1_000) }
    }
}
