// Both escapes walk Unicode scalars, never `Character`s: Swift's "\r\n" is one Character (one grapheme
// cluster), equal to neither "\r" nor "\n", so a check of Characters lets the pair through raw.

extension String {
    /// The text as it goes between double quotes in a Prometheus label value: backslash, double quote and
    /// line feed escaped, the only escapes that format knows.
    var escapedForPrometheusLabel: String {
        escaping { scalar in scalar == "\n" ? "\\n" : nil }
    }

    /// The text as it goes between double quotes in a log line, so that no input can end the line, start a
    /// forged one or drive a terminal: backslash and double quote get a backslash; LF, CR and tab are `\n`,
    /// `\r` and `\t`; every other control character — C0 (U+0000–U+001F, ESC included), DEL (U+007F), C1
    /// (U+0080–U+009F) — and the line and paragraph separators U+2028 and U+2029 are `\u` with four
    /// uppercase hex digits (ESC is `\u001B`), the form JSON and Go read too.
    var escapedForLogLine: String {
        escaping(\.logEscape)
    }

    /// The text with backslash and double quote given a backslash, and every scalar `rule` names written as
    /// it says.
    private func escaping(_ rule: (Unicode.Scalar) -> String?) -> String {
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            default:
                if let escape = rule(scalar) { escaped += escape } else { escaped.unicodeScalars.append(scalar) }
            }
        }
        return escaped
    }
}

extension Unicode.Scalar {
    /// How a log line writes this scalar when it must not appear raw (see `String.escapedForLogLine`); nil
    /// when it may.
    var logEscape: String? {
        switch value {
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029:
            let hex = String(value, radix: 16, uppercase: true)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: return nil
        }
    }
}
