/// A small structured logger: a level filter in front of an injected `LogSink`.
///
/// Guarantee: values that look like a token (a JWT: three base64url segments, the first
/// starting with `eyJ`) are replaced by `[redacted]` before any sink sees them, so no code path
/// can leak a token into the logs by accident.
public struct Logger: Sendable {
    /// The sink that receives records.
    public var sink: any LogSink
    /// Records below this level are dropped.
    public var level: LogLevel

    /// Creates a logger.
    public init(sink: any LogSink, level: LogLevel = .info) {
        self.sink = sink
        self.level = level
    }

    /// A logger that drops everything (for tests and benchmarks that do not look at logs).
    public static var discarding: Logger { Logger(sink: DiscardingLogSink(), level: .error) }

    /// Logs an event with fields, if `level` passes the filter.
    public func log(_ level: LogLevel, _ event: String, _ fields: LogField...) { forward(level, event, fields) }

    /// Logs at `.debug`.
    public func debug(_ event: String, _ fields: LogField...) { forward(.debug, event, fields) }
    /// Logs at `.info`.
    public func info(_ event: String, _ fields: LogField...) { forward(.info, event, fields) }
    /// Logs at `.warning`.
    public func warning(_ event: String, _ fields: LogField...) { forward(.warning, event, fields) }
    /// Logs at `.error`.
    public func error(_ event: String, _ fields: LogField...) { forward(.error, event, fields) }

    private func forward(_ level: LogLevel, _ event: String, _ fields: [LogField]) {
        guard level >= self.level else { return }
        let safeFields = fields.map { LogField($0.key, Self.redactingTokens($0.value)) }
        sink.write(LogRecord(level: level, event: event, fields: safeFields))
    }

    /// Replaces every JWT-shaped word in `text` with `[redacted]`.
    static func redactingTokens(_ text: String) -> String {
        guard text.contains("eyJ") else { return text }
        var result = ""
        var word = ""
        func flush() {
            result += looksLikeToken(word) ? "[redacted]" : word
            word = ""
        }
        for character in text {
            if character.isLetter || character.isNumber || character == "-" || character == "_" || character == "." {
                word.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }

    private static func looksLikeToken(_ word: String) -> Bool {
        word.hasPrefix("eyJ") && word.split(separator: ".", omittingEmptySubsequences: false).count == 3
    }
}

/// A sink that drops every record.
struct DiscardingLogSink: LogSink {
    func write(_ record: LogRecord) {}
}
