import Testing
@testable import TandemServer

@Suite struct MetricsTests {
    @Test func countersAreExactUnderConcurrentIncrements() async {
        let counter = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<10_000 { counter.increment() } }
            }
        }
        #expect(counter.value == 80_000)
    }

    @Test func histogramBucketsAreCumulativeInTheOutput() {
        let histogram = Histogram(bounds: [0.001, 0.01, 0.1])
        for value in [0.0005, 0.001, 0.005, 0.05, 5.0] { histogram.observe(value) }
        let snapshot = histogram.snapshot()
        #expect(snapshot.cumulative == [2, 3, 4, 5])
        #expect(snapshot.count == 5)
        #expect(abs(snapshot.sum - 5.0565) < 1e-9)
    }

    @Test func prometheusTextHasHelpTypeAndEscapedLabels() {
        let metrics = ServerMetrics()
        metrics.connections.add(3)
        metrics.connections.add(-1)
        metrics.messagesIn.increment(by: 7)
        metrics.rejects.increment("invalid_path")
        metrics.rejects.increment("invalid_path")
        metrics.closes.increment("4029")
        metrics.inviteFailures.increment("weird \"label\"\n")
        metrics.commitLatency.observe(0.002)
        let text = metrics.prometheusText()
        let lines = Set(text.split(separator: "\n").map(String.init))
        #expect(lines.contains("# TYPE tandem_connections gauge"))
        #expect(lines.contains("tandem_connections 2"))
        #expect(lines.contains("# TYPE tandem_messages_in_total counter"))
        #expect(lines.contains("tandem_messages_in_total 7"))
        #expect(lines.contains("tandem_rejects_total{code=\"invalid_path\"} 2"))
        #expect(lines.contains("tandem_closes_total{code=\"4029\"} 1"))
        #expect(lines.contains("tandem_invite_failures_total{reason=\"weird \\\"label\\\"\\n\"} 1"))
        #expect(lines.contains("tandem_patch_commit_seconds_bucket{le=\"0.001\"} 0"))
        #expect(lines.contains("tandem_patch_commit_seconds_bucket{le=\"0.0025\"} 1"))
        #expect(lines.contains("tandem_patch_commit_seconds_bucket{le=\"+Inf\"} 1"))
        #expect(lines.contains("tandem_patch_commit_seconds_count 1"))
        // Every sample line belongs to a metric announced by a TYPE line.
        let announced = Set(text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] })
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let name = line.split(whereSeparator: { $0 == "{" || $0 == " " })[0]
            let base = ["_bucket", "_sum", "_count"].reduce(String(name)) { name, suffix in
                name.hasSuffix(suffix) && announced.contains(Substring(name.dropLast(suffix.count))) ? String(name.dropLast(suffix.count)) : name
            }
            #expect(announced.contains(Substring(base)), "sample \(line) has no TYPE line")
        }
    }
}
