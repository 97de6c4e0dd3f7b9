/// How important a log record is; records below a logger's level are dropped before formatting.
public enum LogLevel: Int, Sendable, Comparable, CustomStringConvertible {
    /// Detail for diagnosing a problem.
    case debug
    /// Normal events: start, stop, connections, rooms.
    case info
    /// Something unexpected that the server handled.
    case warning
    /// A failure that lost work or a connection.
    case error

    /// Orders levels by severity.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The lowercase name written in log lines.
    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }
}
