/// Comparisons whose running time does not depend on where secret bytes differ.
public enum ConstantTime {
    /// Whether `lhs` and `rhs` are equal, examining every byte even after a difference (XOR
    /// accumulation) so a signature cannot be guessed byte by byte from response times. Only
    /// the lengths, which are not secret, may end the comparison early.
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices {
            difference |= lhs[index] ^ rhs[index]
        }
        return difference == 0
    }
}
