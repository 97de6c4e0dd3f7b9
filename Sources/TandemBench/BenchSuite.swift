/// One named benchmark suite that `tandem bench NAME` runs.
///
/// A suite measures Tandem against a reference in the same run (ratios, medians of several
/// runs) and prints a table; it returns false when a stated target is missed.
public struct BenchSuite: Sendable {
    /// The suite's name on the command line, e.g. `store`.
    public var name: String
    /// One line describing what it measures.
    public var summary: String
    /// Runs the suite; `runs` is the number of repetitions whose median is reported. Returns whether
    /// every stated target was met.
    public var run: @Sendable (_ runs: Int, _ console: BenchConsole) async -> Bool

    /// Every suite, in the order `tandem bench` with no name runs them.
    public static let all: [BenchSuite] = [
        StoreBenchmark.suite,
        ProtocolBenchmark.suite,
        PipelineBenchmark.suite,
        ContainerBenchmark.suite,
        StorageBenchmark.suite,
        RoomsAPIBenchmark.suite,
        WireBenchmark.suite,
        LatencyBenchmark.suite,
        WeakLinkBenchmark.suite,
        PersistenceBenchmark.suite,
        RelayBenchmark.suite,
    ]

    /// Creates a suite.
    public init(name: String, summary: String, run: @escaping @Sendable (_ runs: Int, _ console: BenchConsole) async -> Bool) {
        self.name = name
        self.summary = summary
        self.run = run
    }
}
