/// Why an operation submitted to a `Gate` was not run.
public enum GateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The gate's condition failed (e.g. login was rejected) while the operation waited.
    case conditionFailed(gate: String, reason: String)

    /// What failed and what to do.
    public var description: String {
        switch self {
        case let .conditionFailed(gate, reason):
            return "\(gate) failed (\(reason)), so the waiting operation was not run; submit it again once \(gate) succeeds"
        }
    }
}
