#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes each record as one line of `key=value` text to standard error:
/// `level=info event=connection.opened room=lobby client=c1`.
///
/// Values with spaces, quotes or `=` are quoted, so lines stay machine-parseable. Each line is
/// written with a single `write(2)`, so concurrent records never interleave within a line.
public struct StandardErrorLogSink: LogSink {
    /// Creates the sink.
    public init() {}

    /// Formats and writes one record.
    public func write(_ record: LogRecord) {
        var bytes = Array(Self.format(record).utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { buffer in
            _ = systemWrite(2, buffer.baseAddress, buffer.count)
        }
    }

    /// The line for `record`, without the newline.
    static func format(_ record: LogRecord) -> String {
        var line = "level=\(record.level) event=\(quoted(record.event))"
        for field in record.fields {
            line += " \(field.key)=\(quoted(field.value))"
        }
        return line
    }

    private static func quoted(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\n" }
        guard needsQuotes else { return value }
        return "\"" + value.escapedForDoubleQuotes + "\""
    }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif
