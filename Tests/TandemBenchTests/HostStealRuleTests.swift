import Testing
@testable import TandemBench

/// Scenario (b) is measured again while the host steals more than 5 % of the CPU; only clean runs are discarded.
@Suite struct HostStealRuleTests {
    private static func run(steal: Double?, lost: Int = 0, p99: Double = 1.0) -> RelayScenarios.FixedRate {
        RelayScenarios.FixedRate(p50Milliseconds: 0.2, p99Milliseconds: p99, lost: lost, expected: 96_000,
                                 serverCores: 0.8, loadCores: 0.6, hostSteal: steal)
    }

    @Test func aCleanRunDuringHighStealIsRepeatedUpToThreeRunsInAll() {
        #expect(HostStealRule.repeats(after: [Self.run(steal: 0.17)]))
        #expect(HostStealRule.repeats(after: [Self.run(steal: 0.17), Self.run(steal: 0.06)]))
        #expect(!HostStealRule.repeats(after: [Self.run(steal: 0.17), Self.run(steal: 0.06), Self.run(steal: 0.12)]))
        #expect(!HostStealRule.repeats(after: [Self.run(steal: 0.05)]))
        #expect(!HostStealRule.repeats(after: [Self.run(steal: 0.17), Self.run(steal: 0.01)]))
        // Where the kernel reports no steal, there is nothing to judge by.
        #expect(!HostStealRule.repeats(after: [Self.run(steal: nil)]))
        #expect(!HostStealRule.repeats(after: []))
    }

    @Test func theRunWithTheLeastStealIsKeptAndCountsTheRuns() throws {
        let kept = try #require(HostStealRule.kept([Self.run(steal: 0.17, p99: 8), Self.run(steal: 0.02, p99: 1), Self.run(steal: 0.09, p99: 3)]))
        #expect(kept.p99Milliseconds == 1)
        #expect(kept.attempts == 3)
        #expect(HostStealRule.kept([Self.run(steal: 0.01)])?.attempts == 1)
        #expect(HostStealRule.kept([]) == nil)
    }

    @Test func aRunThatLostMessagesOrFailedAnOrderCheckIsNeitherRepeatedNorDiscarded() throws {
        #expect(!HostStealRule.repeats(after: [Self.run(steal: 0.17, lost: 3)]))
        var misordered = Self.run(steal: 0.17)
        misordered.audit.staleRevs = 1
        #expect(!HostStealRule.repeats(after: [misordered]))
        var undelivered = Self.run(steal: 0.17)
        undelivered.neverDelivered = 2
        #expect(!HostStealRule.repeats(after: [undelivered]))
        // Kept even when an earlier clean run had less steal.
        let kept = try #require(HostStealRule.kept([Self.run(steal: 0.02), Self.run(steal: 0.30, lost: 3)]))
        #expect(kept.lost == 3)
        #expect(kept.attempts == 2)
    }

    @Test func theLineAndThePerRunTableSayWhenBWasRepeated() throws {
        var rate = Self.run(steal: 0.02, p99: 1.5)
        rate.attempts = 3
        let run = RelayBenchmark.Run(kind: .go, round: 1, loadAverage: 1.2, fixedRate: rate)
        #expect(RelayReport.line(run).contains("host steal 2 % (least of 3 runs)"))
        let report = RelayReport(runs: [run], settings: try RelayBenchmark.Settings(environment: [:]), rounds: 1, started: .now, finished: .now)
        #expect(report.markdown().contains("| 1.50 | 0/96000 | 2 % (least of 3 runs) | — |"))
        rate.attempts = 1
        #expect(!RelayReport.line(RelayBenchmark.Run(kind: .go, round: 1, loadAverage: 1.2, fixedRate: rate)).contains("runs)"))
    }
}
