/// A readable line diff of two values' `dump` output, for failure messages.
enum StateDiff {
    /// Lines of `expected` only are prefixed `−`, lines of `actual` only `+`, shared lines two
    /// spaces. Uses a longest-common-subsequence alignment, so one changed field shows as one
    /// `−`/`+` pair rather than as everything after it.
    static func render(expected: some Any, actual: some Any) -> String {
        let old = lines(of: expected)
        let new = lines(of: actual)
        var table = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: new.count - 1, through: 0, by: -1) {
                table[i][j] = old[i] == new[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var output: [String] = []
        var i = 0
        var j = 0
        while i < old.count || j < new.count {
            if i < old.count, j < new.count, old[i] == new[j] {
                output.append("  " + old[i])
                i += 1
                j += 1
            } else if i < old.count, j == new.count || table[i + 1][j] >= table[i][j + 1] {
                output.append("− " + old[i])
                i += 1
            } else {
                output.append("+ " + new[j])
                j += 1
            }
        }
        return output.joined(separator: "\n")
    }

    private static func lines(of value: some Any) -> [String] {
        var text = ""
        dump(value, to: &text)
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
            .filter { !$0.isEmpty }
    }
}
