extension String {
    /// The text with backslash, double quote and newline escaped — the escaping both the log line
    /// format and the Prometheus label format use inside double quotes.
    var escapedForDoubleQuotes: String {
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for character in self {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
