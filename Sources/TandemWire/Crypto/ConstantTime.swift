/// Comparisons whose running time does not depend on where two secrets differ, so that MAC
/// and token checks do not leak the expected value through timing.
package enum ConstantTime {
    /// True when `lhs` and `rhs` hold the same bytes. The time depends only on the lengths
    /// (lengths of MACs are public), never on the position of the first difference.
    package static func bytesEqual(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) {
            difference |= left ^ right
        }
        return difference == 0
    }
}
