/// A callback-style API broke its contract: reported by `CallbackBridge` to its reporter instead
/// of crashing, so the app can log it loudly (and tests can assert it).
public struct CallbackViolation: Sendable, Hashable, CustomStringConvertible {
    /// What the API did wrong.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A second callback arrived after the first had already resumed the caller.
        case duplicateCallback
        /// A callback arrived after the bridge had given up waiting (time-out).
        case callbackAfterTimeout
        /// A callback arrived after the waiting task had been cancelled.
        case callbackAfterCancellation
        /// The API released its callbacks without calling any of them.
        case callbackDropped
    }

    /// The operation's name as given to `CallbackBridge.call`.
    public var operation: String
    /// What happened.
    public var kind: Kind

    /// Creates a violation record.
    public init(operation: String, kind: Kind) {
        self.operation = operation
        self.kind = kind
    }

    /// E.g. `setSelfInfo: duplicateCallback`.
    public var description: String { "\(operation): \(kind.rawValue)" }
}
