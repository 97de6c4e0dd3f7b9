/// One structured log event: a level, an event name and ordered key/value fields.
public struct LogRecord: Sendable, Equatable {
    /// Severity.
    public var level: LogLevel
    /// A stable, machine-friendly event name, e.g. `connection.closed`.
    public var event: String
    /// Context such as `room`, `client`, `code`, in the order given.
    public var fields: [LogField]

    /// Creates a record.
    public init(level: LogLevel, event: String, fields: [LogField]) {
        self.level = level
        self.event = event
        self.fields = fields
    }
}

/// One key/value pair of a log record.
public struct LogField: Sendable, Equatable {
    /// The field name.
    public var key: String
    /// The field value as text.
    public var value: String

    /// Creates a field.
    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }
}
