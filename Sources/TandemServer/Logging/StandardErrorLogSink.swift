#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes each record as one line of `key=value` text to standard error:
/// `level=info event=connection.opened room=lobby client=c1`.
///
/// Values that are empty or hold a space, a double quote, `=`, a control character or a line separator are
/// quoted. Inside the quotes a backslash and a double quote get a backslash; LF, CR and tab are `\n`, `\r`
/// and `\t`; every other C0 control (ESC included), DEL, C1 control and U+2028/U+2029 is `\u` with four
/// uppercase hex digits (ESC is `\u001B`), as in JSON. Field names are written bare, each of those characters,
/// a space, `=` or `"` replaced by `_`. So whatever a client put in a value, a record is one line that no value
/// can end, follow with a forged one or turn into terminal commands. Each line is written with a single
/// `write(2)`, so concurrent records never interleave within a line.
public struct StandardErrorLogSink: LogSink {
    /// Creates the sink.
    public init() {}

    /// Formats and writes one record.
    public func write(_ record: LogRecord) {
        Self.line(record).withUnsafeBytes { buffer in
            _ = systemWrite(2, buffer.baseAddress, buffer.count)
        }
    }

    /// The bytes written for `record`: its line and the newline that ends it.
    static func line(_ record: LogRecord) -> [UInt8] {
        var bytes = Array(format(record).utf8)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// The line for `record`, without the newline.
    static func format(_ record: LogRecord) -> String {
        var line = "level=\(record.level) event=\(quoted(record.event))"
        for field in record.fields {
            line += " \(key(field.key))=\(quoted(field.value))"
        }
        return line
    }

    /// `value` bare when it reads back as itself, otherwise between double quotes with escapes.
    private static func quoted(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.unicodeScalars.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.logEscape != nil }
        guard needsQuotes else { return value }
        return "\"" + value.escapedForLogLine + "\""
    }

    /// `name` as one bare word before a `=`.
    private static func key(_ name: String) -> String {
        let breaksWord: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\"" || $0 == "=" || $0.logEscape != nil }
        guard name.unicodeScalars.contains(where: breaksWord) else { return name }
        var word = ""
        for scalar in name.unicodeScalars { word.unicodeScalars.append(breaksWord(scalar) ? "_" : scalar) }
        return word
    }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif
