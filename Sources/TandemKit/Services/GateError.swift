/// Why an operation submitted to a `Gate` was not run.
public enum GateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The gate's condition failed (e.g. login was rejected) while the operation waited.
    case conditionFailed(gate: String, reason: String)
    /// The gate was finished for good (e.g. the session it guards ended): it will never open again.
    case finished(gate: String, reason: String)

    /// What failed and what to do.
    public var description: String {
        switch self {
        case let .conditionFailed(gate, reason):
            return "\(gate) failed (\(reason)), so the waiting operation was not run; submit it again once \(gate) succeeds"
        case let .finished(gate, reason):
            return "\(gate) has ended (\(reason)) and will not open again, so the operation was not run; start a new one"
        }
    }
}
