import Foundation
import Testing
@testable import TandemBench

/// The pure parts of `tandem bench relays`: percentiles, `/proc` parsing, banners and stamps.
@Suite struct RelayBenchmarkStatisticsTests {
    @Test func percentilesUseNearestRank() {
        let samples = Array(1...100).shuffled()
        #expect(LoadStatistics.percentile(0.5, of: samples) == 50)
        #expect(LoadStatistics.percentile(0.99, of: samples) == 99)
        #expect(LoadStatistics.percentile(1.0, of: samples) == 100)
        #expect(LoadStatistics.percentile(0.0, of: samples) == 1)
        #expect(LoadStatistics.percentile(0.99, of: [7]) == 7)
        #expect(LoadStatistics.percentile(0.5, of: []) == nil)
        // 3 samples: p50 is the 2nd (rank ceil(1.5)), p99 the 3rd.
        #expect(LoadStatistics.percentile(0.5, of: [30, 10, 20]) == 20)
        #expect(LoadStatistics.percentile(0.99, of: [30, 10, 20]) == 30)
    }

    @Test func cpuTicksAreFields14And15EvenWithSpacesInTheName() {
        let line = "4242 (go relay) (x)) S 1 4242 4242 0 -1 4194560 1234 0 0 0 150 37 0 0 20 0 5 0 98765 1000000 2000 18446744073709551615"
        #expect(LoadStatistics.cpuTicks(procStat: line) == 187)
        #expect(LoadStatistics.cpuTicks(procStat: "12 (tandem) S 1 2") == nil)
        #expect(LoadStatistics.cpuTicks(procStat: "garbage") == nil)
    }

    @Test func hostStealIsTheEighthFieldOfTheCPULineOverItsFirstEight() {
        let stat = "cpu  6544754 64473 1354477 3924881 98559 0 348780 78995 11 22\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 1 2\n"
        let ticks = LoadStatistics.hostCPUTicks(procStat: stat)
        #expect(ticks?.total == 6544754 + 64473 + 1354477 + 3924881 + 98559 + 0 + 348780 + 78995)
        #expect(ticks?.stolen == 78995)
        #expect(LoadStatistics.hostCPUTicks(procStat: "cpu0 1 2 3 4 5 6 7 8\n") == nil)
        #expect(LoadStatistics.hostCPUTicks(procStat: "cpu  1 2 3 4 5 6 7\n") == nil, "a kernel without a steal field")
        #expect(LoadStatistics.stolenShare(from: (total: 1_000, stolen: 10), to: (total: 1_400, stolen: 110)) == 0.25)
        #expect(LoadStatistics.stolenShare(from: (total: 1_000, stolen: 10), to: (total: 1_000, stolen: 10)) == nil)
        #expect(LoadStatistics.stolenShare(from: nil, to: (total: 1_000, stolen: 10)) == nil)
        #if os(Linux)
        #expect(LoadStatistics.hostCPUTicks() != nil)
        #endif
    }

    @Test func theHostStealOfAFixedRateRunIsInItsLineAndInThePerRunTable() throws {
        let rate = RelayScenarios.FixedRate(p50Milliseconds: 0.2, p99Milliseconds: 1.5, lost: 0, expected: 96_000,
                                            serverCores: 0.8, loadCores: 0.6, hostSteal: 0.17)
        let run = RelayBenchmark.Run(kind: .go, round: 1, loadAverage: 1.2, fixedRate: rate)
        #expect(RelayReport.line(run).contains("(b) p50 0.20 ms p99 1.50 ms lost 0/96000, host steal 17 %"))
        var unmeasured = run
        unmeasured.fixedRate?.hostSteal = nil
        #expect(!RelayReport.line(unmeasured).contains("steal"))
        let report = RelayReport(runs: [run], settings: try RelayBenchmark.Settings(environment: [:]), rounds: 1, started: .now, finished: .now)
        let markdown = report.markdown()
        #expect(markdown.contains("| (b) lost | (b) host steal | (c) kB/conn |"))
        #expect(markdown.contains("| 1.50 | 0/96000 | 17 % | — |"))
    }

    @Test func residentBytesComeFromTheVmRSSLine() {
        let status = "Name:\ttandem\nVmPeak:\t  999 kB\nVmRSS:\t    5584 kB\nThreads:\t3\n"
        #expect(LoadStatistics.residentBytes(procStatus: status) == 5584 * 1024)
        #expect(LoadStatistics.residentBytes(procStatus: "Name:\tx\n") == nil)
    }

    @Test func ownCPUTimeAndOtherProcessesAreReadable() {
        #expect(LoadStatistics.ownCPUSeconds() > 0)
        #expect(LoadStatistics.cpuSeconds(processID: getpidForTest()) != nil)
        #expect((LoadStatistics.residentBytes(processID: getpidForTest()) ?? 0) > 0)
    }

    @Test func serverPortsComeFromEitherBanner() {
        #expect(RelayServerProcess.port(inBanner: "PORT 40123\n") == 40123)
        let tandem = "Tandem sync server\n  listening  ws://127.0.0.1:39001/v1/sync\n  http  http://127.0.0.1:39001\n"
        #expect(RelayServerProcess.port(inBanner: tandem) == 39001)
        #expect(RelayServerProcess.port(inBanner: "starting…\n") == nil)
    }

    @Test func stampsParseBackAndOffsetsFindKeys() {
        let text = Array(#"{"type":"patch","rev":12,"ops":[{"op":"set","path":"/c1","value":"17 5 123456789 xxxx"}]}"#.utf8)
        text.withUnsafeBytes { raw in
            guard var index = LoadStatistics.offset(after: Array(#""value":""#.utf8), in: raw) else {
                Issue.record("value key not found")
                return
            }
            #expect(LoadStatistics.parseInteger(raw, at: &index) == 17)
            #expect(LoadStatistics.parseInteger(raw, at: &index) == 5)
            #expect(LoadStatistics.parseInteger(raw, at: &index) == 123_456_789)
            #expect(LoadStatistics.offset(after: Array(#""missing":"#.utf8), in: raw) == nil)
            var rev = LoadStatistics.offset(after: Array(#""rev":"#.utf8), in: raw) ?? 0
            #expect(LoadStatistics.parseInteger(raw, at: &rev) == 12)
        }
    }

    @Test func settingsComeFromTheEnvironmentAndRefuseBadValues() throws {
        let defaults = try RelayBenchmark.Settings(environment: [:])
        #expect(defaults.servers == [.go, .python, .tandem, .tandemMemory])
        #expect(defaults.scenarios == ["a", "b", "c", "d"])
        let chosen = try RelayBenchmark.Settings(environment: [
            "TANDEM_BENCH_SERVERS": "tandem,go", "TANDEM_BENCH_SCENARIOS": "a", "TANDEM_BENCH_SECONDS": "2",
            "TANDEM_BENCH_WINDOW": "4", "TANDEM_BENCH_IDLE": "100",
        ])
        #expect(chosen.servers == [.tandem, .go])
        #expect(chosen.scenarios == ["a"])
        #expect(chosen.sizes.measure == .seconds(2))
        #expect(chosen.sizes.window == 4)
        #expect(chosen.sizes.idleConnections == 100)
        #expect(throws: RelayBenchError.self) { try RelayBenchmark.Settings(environment: ["TANDEM_BENCH_SERVERS": "nginx"]) }
        #expect(throws: RelayBenchError.self) { try RelayBenchmark.Settings(environment: ["TANDEM_BENCH_SECONDS": "0"]) }
        #expect(throws: RelayBenchError.self) { try RelayBenchmark.Settings(environment: ["TANDEM_BENCH_IDLE": "lots"]) }
    }

    @Test func reportShowsMediansRangesAndBars() throws {
        let settings = try RelayBenchmark.Settings(environment: ["TANDEM_BENCH_SERVERS": "go,tandem"])
        func run(_ kind: RelayServerKind, _ round: Int, rate: Double) -> RelayBenchmark.Run {
            var run = RelayBenchmark.Run(kind: kind, round: round, loadAverage: 1.5)
            run.peak = .init(messagesPerSecond: rate, p50Milliseconds: 1, p99Milliseconds: 2, lost: 0, serverCores: 0.5, loadCores: 0.25)
            return run
        }
        let runs = [run(.go, 1, rate: 100_000), run(.tandem, 1, rate: 200_000), run(.go, 2, rate: 120_000), run(.tandem, 2, rate: 180_000),
                    run(.go, 3, rate: 110_000), run(.tandem, 3, rate: 190_000)]
        let report = RelayReport(runs: runs, settings: settings, rounds: 3, started: .now, finished: .now)
        let table = report.summaryTable()
        #expect(table.contains("| Go gorilla/websocket relay | 110,000 (100,000–120,000) | 50 % |"))
        #expect(table.contains("| Tandem (durable acks) | 190,000 (180,000–200,000) |"))
        #expect(!table.contains("Python"))
        #expect(report.markdown().contains("| 2 | tandem | 1.50 | 180,000 |"))
        let svg = report.svg()
        #expect(svg.hasPrefix("<svg"))
        #expect(svg.components(separatedBy: "<rect x=").count - 1 == 2)  // one bar per server with (a) results
        #expect(svg.contains("190,000"))
        let targets = report.targets()
        #expect(targets.lines == ["ok: (a) Tandem delivers 1.73× the Go relay's messages/s (target ≥ 1.00×)"])
        #expect(targets.met)
    }

    @Test func missedTargetsAreReported() throws {
        let settings = try RelayBenchmark.Settings(environment: ["TANDEM_BENCH_SERVERS": "tandem", "TANDEM_BENCH_IDLE": "100"])
        var run = RelayBenchmark.Run(kind: .tandem, round: 1, loadAverage: 0.5)
        run.idle = .init(bytesPerConnection: 12_000, held: 100)
        run.resume = .init(seconds: 1.2, snapshots: 0, clients: 1000)
        let targets = RelayReport(runs: [run], settings: settings, rounds: 1, started: .now, finished: .now).targets()
        #expect(targets.lines.count == 2)
        #expect(targets.lines[0].hasPrefix("MISSED: (c) Tandem holds 100 idle connections at 12.0 kB each"))
        #expect(targets.lines[1].hasPrefix("ok: (d) 1000 Tandem clients resumed in 1.20 s"))
        #expect(!targets.met)
    }

    @Test func reportNumbersAreGroupedAndFixed() {
        #expect(RelayReport.grouped(326_000.4) == "326,000")
        #expect(RelayReport.grouped(999) == "999")
        #expect(RelayReport.grouped(1_000) == "1,000")
        #expect(RelayReport.grouped(-12_345) == "-12,345")
        #expect(RelayReport.fixed(0.904, 2) == "0.90")
        #expect(RelayReport.percent(0.87) == "87 %")
        #expect(RelayReport.escape("a<b&c") == "a&lt;b&amp;c")
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

private func getpidForTest() -> Int32 { getpid() }
