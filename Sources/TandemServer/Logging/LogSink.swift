/// Where log records go. Implement it to route Tandem's logs into an app's own logging.
///
/// Field values are the text the server saw, unescaped: they may hold whatever a client sent, line breaks
/// and terminal escapes included. A sink that writes text escapes them, as `StandardErrorLogSink` does.
///
/// Implementations must be safe to call from any thread.
public protocol LogSink: Sendable {
    /// Receives one record that passed the logger's level filter.
    func write(_ record: LogRecord)
}
