import Foundation

/// Turns the runs of `tandem bench relays` into a console table, a Markdown report and an SVG bar chart.
struct RelayReport {
    var runs: [RelayBenchmark.Run]
    var settings: RelayBenchmark.Settings
    var rounds: Int
    var started: Date
    var finished: Date

    /// Median, smallest and largest of one metric over the rounds of one server.
    struct Spread {
        var median: Double
        var low: Double
        var high: Double
    }

    func spread(_ kind: RelayServerKind, _ metric: (RelayBenchmark.Run) -> Double?) -> Spread? {
        let samples = runs.filter { $0.kind == kind }.compactMap(metric)
        guard let low = samples.min(), let high = samples.max() else { return nil }
        return Spread(median: samples.median, low: low, high: high)
    }

    // MARK: - Text

    /// One progress line for a finished run.
    static func line(_ run: RelayBenchmark.Run) -> String {
        var parts = ["round \(run.round)", run.kind.rawValue, "load \(fixed(run.loadAverage, 2))"]
        if let peak = run.peak {
            let redis = peak.redisCores.map { " of which Redis \(percent($0))" } ?? ""
            parts.append("(a) \(grouped(peak.messagesPerSecond)) msg/s, server \(percent(peak.serverCores)) CPU\(redis) (\(fixed(peak.serverMicrosecondsPerDelivery, 2)) µs/delivery), generator \(percent(peak.loadCores)), p99 \(fixed(peak.p99Milliseconds, 2)) ms, lost \(peak.lost)")
        }
        if let rate = run.fixedRate {
            let steal = rate.hostSteal.map { ", host steal \(percent($0))\(Self.attemptsNote(rate))" } ?? ""
            parts.append("(b) p50 \(fixed(rate.p50Milliseconds, 2)) ms p99 \(fixed(rate.p99Milliseconds, 2)) ms lost \(rate.lost)/\(rate.expected)\(steal)")
        }
        if let idle = run.idle { parts.append("(c) \(fixed(idle.bytesPerConnection / 1000, 1)) kB/conn, \(idle.held) held") }
        if let resume = run.resume {
            parts.append("(d) \(fixed(resume.seconds, 2)) s, \(resume.snapshots) snapshots, server \(fixed(resume.serverMicrosecondsPerResume, 0)) µs CPU per resume")
        }
        if run.kind.speaksTandem, run.peak != nil || run.fixedRate != nil || run.resume != nil { parts.append("order \(run.audit.summary)") }
        parts += run.failures.map { "FAILED: \($0)" }
        return parts.joined(separator: "; ")
    }

    /// " (least of N runs)" when `HostStealRule` repeated (b), else nothing.
    private static func attemptsNote(_ rate: RelayScenarios.FixedRate) -> String {
        rate.attempts > 1 ? " (least of \(rate.attempts) runs)" : ""
    }

    /// The table of medians (with the range over rounds), as Markdown; also what the console prints.
    func summaryTable() -> String {
        var lines = [
            "| server | (a) delivered msg/s | (a) server CPU | (a) server µs CPU / delivery | (a) generator CPU | (a) p99 ms | (b) p50 ms | (b) p99 ms | (b) lost | (b) server CPU | (c) kB / idle conn. | (d) resume storm s | (d) server µs CPU / resume | (d) snapshots |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for kind in settings.servers {
            let cells: [String] = [
                kind.label,
                cell(kind, { $0.peak?.messagesPerSecond }) { Self.grouped($0) },
                cell(kind, { $0.peak?.serverCores }, range: false) { Self.percent($0) },
                cell(kind, { $0.peak?.serverMicrosecondsPerDelivery }) { Self.fixed($0, 2) },
                cell(kind, { $0.peak?.loadCores }, range: false) { Self.percent($0) },
                cell(kind, { $0.peak?.p99Milliseconds }) { Self.fixed($0, 1) },
                cell(kind, { $0.fixedRate?.p50Milliseconds }) { Self.fixed($0, 2) },
                cell(kind, { $0.fixedRate?.p99Milliseconds }) { Self.fixed($0, 2) },
                cell(kind, { $0.fixedRate.map { Double($0.lost) } }, range: false) { Self.grouped($0) },
                cell(kind, { $0.fixedRate?.serverCores }, range: false) { Self.percent($0) },
                cell(kind, { $0.idle.map { $0.bytesPerConnection / 1000 } }) { Self.fixed($0, 1) },
                cell(kind, { $0.resume?.seconds }) { Self.fixed($0, 2) },
                cell(kind, { $0.resume?.serverMicrosecondsPerResume }) { Self.fixed($0, 0) },
                cell(kind, { $0.resume.map { Double($0.snapshots) } }, range: false) { Self.grouped($0) },
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    func cell(
        _ kind: RelayServerKind, _ metric: (RelayBenchmark.Run) -> Double?, range: Bool = true, _ format: (Double) -> String
    ) -> String {
        guard let spread = spread(kind, metric) else { return "—" }
        guard range, spread.low != spread.high else { return format(spread.median) }
        return "\(format(spread.median)) (\(format(spread.low))–\(format(spread.high)))"
    }

    /// The whole `docs/bench/relays.md`.
    func markdown() -> String {
        let sizes = settings.sizes
        var text = """
        # Relay benchmarks: Tandem against Go and Python relays

        Generated by `\(settings.command)` (\(rounds) rounds, \(Self.timestamp(started)) to \(Self.timestamp(finished)) UTC).
        Medians over the rounds, the range in parentheses. Servers alternate inside every round
        (\(settings.servers.map(\.rawValue).joined(separator: " → "))), each a separate process; one load generator
        (`tandem bench relays`, one TandemWire event-loop thread) drives them all.

        **Noise warning.** This machine has \(ProcessInfo.processInfo.activeProcessorCount) cores shared with other builds; the 1-minute load
        average at the start of every run is in the per-run table, and so is the share of the machine's CPU
        time a hypervisor gave to other guests during (b) ("host steal", from `/proc/stat`): while it is high, a
        stalled virtual CPU stalls whatever thread ran on it, and the (b) tail measures the host more than the
        server. So a clean (b) run during which the host stole more than \(Self.percent(HostStealRule.maxSteal)) is repeated, up to
        \(HostStealRule.maxAttempts) runs, and the one with the least steal is kept, for every server alike (the table says when);
        a run that lost a message or failed an order check is always kept. Absolute numbers move a lot between runs; compare servers inside one run, and rerun the command
        on a quiet machine before drawing conclusions.

        \(Self.machineFacts())

        ![delivered messages per second and p99 latency](relays.svg)

        Where Tandem's time goes in (a), and what was changed because of it: [relays-profile.md](relays-profile.md).

        \(summaryTable())

        Targets (Tandem with durable acks, medians of this run):

        \(targets().lines.map { "- " + $0 }.joined(separator: "\n"))

        ## Scenarios

        - **(a) peak**: \(sizes.peakRooms) rooms × \(sizes.peakRoomSize) clients, \(sizes.messageSize)-byte text messages, closed loop: every
          client keeps \(sizes.window) messages in flight, a message completes when every other member of its room
          received it. Counted: deliveries per second over \(Self.seconds(sizes.measure)) s after \(Self.seconds(sizes.warmup)) s of warm-up.
          CPU columns are cores (100 % = one core) over that window: server from `/proc/PID/stat`, generator
          from `getrusage`. The generator has one thread, so 100 % means it is the bottleneck. "µs CPU /
          delivery" is the server's CPU time divided by the deliveries: on a busy machine it moves less than
          the rate, which also counts the time a server waited for a core.
        - **(b) fixed rate**: \(sizes.rateRooms) rooms × \(sizes.rateRoomSize) clients, each sending \(sizes.messagesPerSecond) messages/s for \(Self.seconds(sizes.measure)) s, spread
          evenly; one-way latency (send to receipt by each other member, one process clock) and deliveries
          still missing 3 s after the last send.
        - **(c) idle**: \(Self.grouped(Double(sizes.idleConnections))) connections in rooms of 10 (Tandem: after `welcome`), server RSS after
          minus before, divided by the connections held. A fresh server process per measurement.
        - **(d) resume storm** (Tandem only): \(Self.grouped(Double(sizes.stormClients))) clients in rooms of 10 each send a patch and see every ack and
          patch event, then all their TCP connections are dropped at once; all reconnect (250 handshakes in
          flight) with `hello.resume`. Time from the drop to the last `welcome`; snapshots = welcomes that
          carried the full state instead of a replay.
        - **(e) durability**: "Tandem (durable acks)" is `tandem serve` with SQLite (acks after commit);
          "Tandem (--in-memory)" is the same server with `--in-memory`.
        - Relays: a client joins the room in the path (`/room/NAME`); every message goes to every other
          member. Tandem clients speak protocol v1: `hello` with an HS256 token signed with the server's
          `TANDEM_SECRET`, `patch` messages of \(sizes.messageSize) bytes (one `set` op), counted as delivered when the
          `patch` event reaches another member; `ack`s are counted too. Tandem runs with `--rate-limit 0`.

        ## Per run

        | round | server | load avg (1 min) | (a) msg/s | (a) server CPU | (a) µs/delivery | (a) gen. CPU | (b) p99 ms | (b) lost | (b) host steal | (c) kB/conn | (d) s | notes |
        | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |

        """
        for run in runs {
            let cells: [String] = [
                "\(run.round)", run.kind.rawValue, Self.fixed(run.loadAverage, 2),
                run.peak.map { Self.grouped($0.messagesPerSecond) } ?? "—",
                run.peak.map { Self.percent($0.serverCores) } ?? "—",
                run.peak.map { Self.fixed($0.serverMicrosecondsPerDelivery, 2) } ?? "—",
                run.peak.map { Self.percent($0.loadCores) } ?? "—",
                run.fixedRate.map { Self.fixed($0.p99Milliseconds, 2) } ?? "—",
                run.fixedRate.map { "\($0.lost)/\($0.expected)" } ?? "—",
                run.fixedRate.flatMap { rate in rate.hostSteal.map { Self.percent($0) + Self.attemptsNote(rate) } } ?? "—",
                run.idle.map { Self.fixed($0.bytesPerConnection / 1000, 1) } ?? "—",
                run.resume.map { Self.fixed($0.seconds, 2) } ?? "—",
                run.failures.joined(separator: "; ").replacingOccurrences(of: "|", with: "/"),
            ]
            text += "| " + cells.joined(separator: " | ") + " |\n"
        }
        return text
    }

    /// The CPU model, core count, memory and kernel of this machine, as one sentence.
    static func machineFacts() -> String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let memory = meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first }
            .flatMap { Double($0) }.map { Self.fixed($0 / 1_048_576, 1) + " GiB" } ?? "unknown"
        let kernel = ((try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)) ?? "unknown")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return "Machine: \(model), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(memory) RAM, Linux \(kernel)."
    }

    // MARK: - Targets

    /// The relay targets for Tandem with durable acks, judged on the medians of this run: one line each,
    /// `ok:` or `MISSED:`, and whether all that could be judged were met. A target needs its scenario (and,
    /// for ratios, the Go relay) in the run; the others are left out.
    func targets() -> (lines: [String], met: Bool) {
        var lines: [String] = []
        var met = true
        func judge(_ passed: Bool, _ text: String) {
            lines.append((passed ? "ok: " : "MISSED: ") + text)
            met = met && passed
        }
        let tandemRate = spread(.tandem) { $0.peak?.messagesPerSecond }
        if let ours = tandemRate, let go = spread(.go, { $0.peak?.messagesPerSecond }) {
            let ratio = ours.median / go.median
            judge(ratio >= 1.0, "(a) Tandem delivers \(Self.fixed(ratio, 2))× the Go relay's messages/s (target ≥ 1.00×)")
        }
        if let ours = spread(.tandem, { $0.fixedRate?.p99Milliseconds }), let go = spread(.go, { $0.fixedRate?.p99Milliseconds }) {
            let lost = runs.filter { $0.kind == .tandem }.compactMap(\.fixedRate).reduce(0) { $0 + $1.lost }
            judge(ours.median <= go.median && lost == 0,
                  "(b) Tandem p99 \(Self.fixed(ours.median, 2)) ms vs the Go relay's \(Self.fixed(go.median, 2)) ms, \(lost) lost (target ≤ Go, 0 lost)")
        }
        if let perConnection = spread(.tandem, { $0.idle?.bytesPerConnection }) {
            let held = runs.filter { $0.kind == .tandem }.compactMap(\.idle).map(\.held).min() ?? 0
            judge(perConnection.median <= 10_000 && held >= settings.sizes.idleConnections,
                  "(c) Tandem holds \(held) idle connections at \(Self.fixed(perConnection.median / 1000, 1)) kB each (target ≤ 10 kB, \(settings.sizes.idleConnections) held)")
        }
        if let storm = spread(.tandem, { $0.resume?.seconds }) {
            let snapshots = runs.filter { $0.kind == .tandem }.compactMap(\.resume).reduce(0) { $0 + $1.snapshots }
            judge(storm.median <= 5 && snapshots == 0,
                  "(d) \(settings.sizes.stormClients) Tandem clients resumed in \(Self.fixed(storm.median, 2)) s, \(snapshots) snapshots (target ≤ 5 s, none)")
        }
        return (lines, met)
    }

    // MARK: - Chart

    /// Two bar charts side by side: (a) delivered messages/s and (b) p99 latency, medians with range whiskers.
    func svg() -> String {
        let peak = settings.servers.map { kind in (kind, spread(kind) { $0.peak?.messagesPerSecond }) }
        let latency = settings.servers.map { kind in (kind, spread(kind) { $0.fixedRate?.p99Milliseconds }) }
        let width = 860.0
        let height = 340.0
        var body = ""
        body += panel(title: "(a) delivered messages/s (higher is better)", bars: peak, x: 0, format: { Self.grouped($0) })
        body += panel(title: "(b) p99 latency at fixed rate, ms (lower is better)", bars: latency, x: width / 2, format: { Self.fixed($0, 2) })
        return """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        \(body)</svg>

        """
    }

    private static let colors: [RelayServerKind: String] = [
        .go: "#3b7dd8", .python: "#e0a030", .tandem: "#2e9e5b", .tandemMemory: "#8bd3a6", .tandemTLS: "#1f6b3e",
    ]

    private func panel(title: String, bars: [(RelayServerKind, Spread?)], x: Double, format: (Double) -> String) -> String {
        let top = 40.0
        let bottom = 260.0
        let left = x + 30
        let slot = 360.0 / Double(max(bars.count, 1))
        let maximum = bars.compactMap { $0.1?.high }.max() ?? 1
        var out = "<text x=\"\(Int(x + 20))\" y=\"22\" font-size=\"14\" font-weight=\"bold\">\(Self.escape(title))</text>\n"
        out += "<line x1=\"\(Int(left))\" y1=\"\(Int(bottom))\" x2=\"\(Int(left + 380))\" y2=\"\(Int(bottom))\" stroke=\"#444\"/>\n"
        for (position, bar) in bars.enumerated() {
            let (kind, value) = bar
            let center = left + slot * (Double(position) + 0.5) + 10
            let label = kind.shortLabel
            out += "<text x=\"\(Int(center))\" y=\"\(Int(bottom + 18))\" text-anchor=\"middle\" font-size=\"11\">\(Self.escape(label))</text>\n"
            guard let value, maximum > 0 else { continue }
            let scale = (bottom - top) / maximum
            let barHeight = value.median * scale
            let color = Self.colors[kind] ?? "#888"
            out += "<rect x=\"\(Int(center - slot * 0.3))\" y=\"\(Int(bottom - barHeight))\" width=\"\(Int(slot * 0.6))\" height=\"\(Int(barHeight))\" fill=\"\(color)\"/>\n"
            out += "<line x1=\"\(Int(center))\" y1=\"\(Int(bottom - value.low * scale))\" x2=\"\(Int(center))\" y2=\"\(Int(bottom - value.high * scale))\" stroke=\"#222\"/>\n"
            out += "<text x=\"\(Int(center))\" y=\"\(Int(bottom - value.high * scale - 6))\" text-anchor=\"middle\">\(Self.escape(format(value.median)))</text>\n"
        }
        return out
    }

    // MARK: - Formatting

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// A whole number with thousands separators, e.g. 326,000.
    static func grouped(_ value: Double) -> String {
        let digits = String(Int(value.rounded()).magnitude)
        var out = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0, (digits.count - offset).isMultiple(of: 3) { out.append(",") }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }

    /// `value` with `places` decimals.
    static func fixed(_ value: Double, _ places: Int) -> String {
        String(format: "%.\(places)f", value)
    }

    static func percent(_ cores: Double) -> String {
        "\(Int((cores * 100).rounded())) %"
    }

    static func seconds(_ duration: Duration) -> String {
        fixed(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18, 0)
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
