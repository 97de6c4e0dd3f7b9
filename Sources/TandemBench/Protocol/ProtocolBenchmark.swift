import TandemProtocol

/// `tandem bench protocol`: the protocol model's two hot paths against references in the same run —
/// parsing a patch message with Tandem's JSON parser against Foundation's `JSONSerialization`, and
/// applying 100-op patches to a 1 MiB document against serializing that document once per patch —
/// and what rebasing a late patch over concurrent list edits costs next to applying it.
enum ProtocolBenchmark {
    /// The suite as `tandem bench` lists it.
    static let suite = BenchSuite(
        name: "protocol",
        summary: "JSON parse of a patch message vs JSONSerialization; a 100-op patch on a 1 MiB document vs one serialization of it"
    ) { runs, console in
        run(runs: runs, console: console)
    }

    /// The targets: parsing at least as fast as Foundation, and a patch at least 10 times cheaper than
    /// serializing the document (what a size check without incremental tracking would pay).
    static let minParseSpeedup = 1.0
    static let minPatchSpeedup = 10.0

    static func run(runs: Int, console: BenchConsole) -> Bool {
        let parsing = (0..<runs).map { _ in JSONBenchmark.run(iterations: 20_000) }.sorted { $0.speedup < $1.speedup }[runs / 2]
        let patching = (0..<runs).map { _ in DocumentBenchmark.run(patches: 100) }.sorted { $0.speedup < $1.speedup }[runs / 2]
        let rebasing = (0..<runs).map { _ in RebaseBenchmark.run() }.sorted { $0.ratio < $1.ratio }[runs / 2]
        console.out(parsing.description)
        console.out(patching.description)
        console.out(rebasing.description)
        var met = true
        if parsing.speedup < minParseSpeedup {
            console.out("MISSED: parsing is \(parsing.speedup)x Foundation's speed (target ≥ \(minParseSpeedup)x)")
            met = false
        }
        if patching.speedup < minPatchSpeedup {
            console.out("MISSED: a patch is \(patching.speedup)x cheaper than a serialization (target ≥ \(minPatchSpeedup)x)")
            met = false
        }
        return met
    }
}
