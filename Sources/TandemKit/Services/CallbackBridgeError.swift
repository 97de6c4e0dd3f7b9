/// Why a bridged callback-style call ended without a result from the API.
public enum CallbackBridgeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Neither callback came within `after`.
    case timedOut(operation: String, after: Duration)
    /// The API released its callbacks without calling any of them.
    case callbackDropped(operation: String)

    /// What happened and what to check.
    public var description: String {
        switch self {
        case let .timedOut(operation, after):
            return "\(operation) did not answer within \(after); check connectivity and retry"
        case let .callbackDropped(operation):
            return "\(operation) finished without calling back; the SDK dropped the request, retry it"
        }
    }
}
