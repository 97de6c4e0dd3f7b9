/// Where a suite writes: its results line by line to `out`, diagnostics to `err` (the command line
/// passes its standard output and error; a test passes a recorder).
public struct BenchConsole: Sendable {
    private let write: @Sendable (String) -> Void
    private let diagnose: @Sendable (String) -> Void

    /// A console that hands each result line to `out` and each diagnostic line to `err`.
    public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
        write = out
        diagnose = err
    }

    /// Writes one result line.
    public func out(_ line: String) { write(line) }

    /// Writes one diagnostic line.
    public func err(_ line: String) { diagnose(line) }
}
