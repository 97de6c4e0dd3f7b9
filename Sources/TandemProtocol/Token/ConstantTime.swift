/// Comparisons whose running time does not depend on where secret bytes differ: the one implementation
/// every check of a MAC, a token signature or a handshake's accept value uses.
public enum ConstantTime {
    /// Whether `lhs` and `rhs` are equal, examining every byte even after a difference (XOR
    /// accumulation) so a signature cannot be guessed byte by byte from response times. Only
    /// the lengths, which are not secret, may end the comparison early.
    public static func equals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) {
            difference |= left ^ right
        }
        return difference == 0
    }
}
