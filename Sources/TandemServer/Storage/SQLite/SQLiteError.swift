/// A failure reported by SQLite, with the operation that failed and SQLite's own message.
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// SQLite's primary result code (e.g. 5 for `SQLITE_BUSY`, 11 for `SQLITE_CORRUPT`).
    public var code: Int32
    /// What Tandem was doing: "open", "prepare", "step", "bind", "exec".
    public var operation: String
    /// SQLite's message for the failure.
    public var message: String

    /// Creates an error.
    public init(code: Int32, operation: String, message: String) {
        self.code = code
        self.operation = operation
        self.message = message
    }

    /// A readable description naming the operation, the code and SQLite's message.
    public var description: String { "SQLite \(operation) failed (code \(code)): \(message)" }
}
