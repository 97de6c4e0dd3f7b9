/// Where log records go. Implement it to route Tandem's logs into an app's own logging.
///
/// Implementations must be safe to call from any thread.
public protocol LogSink: Sendable {
    /// Receives one record that passed the logger's level filter.
    func write(_ record: LogRecord)
}
