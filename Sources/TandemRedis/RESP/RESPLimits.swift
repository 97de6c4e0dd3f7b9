/// Bounds on what one reply may hold, so a faulty or hostile server cannot make the client
/// allocate without limit. A reply over a bound is a `RESPProtocolError`, never a crash.
package struct RESPLimits: Sendable, Equatable {
    /// The largest bulk string, blob error or verbatim string, in bytes.
    package var maxBulkBytes: Int
    /// The most elements of one array, set, push, or pairs of one map.
    package var maxElements: Int
    /// The deepest nesting of aggregates.
    package var maxDepth: Int
    /// The longest header or simple line (simple strings, errors, numbers) before its CRLF.
    package var maxLineBytes: Int

    /// Defaults: 64 MiB bulk strings, one million elements, depth 32, lines of 64 KiB.
    package init(maxBulkBytes: Int = 64 << 20, maxElements: Int = 1_000_000, maxDepth: Int = 32, maxLineBytes: Int = 64 << 10) {
        self.maxBulkBytes = maxBulkBytes
        self.maxElements = maxElements
        self.maxDepth = maxDepth
        self.maxLineBytes = maxLineBytes
    }
}
