/// Why a pipeline did not produce its output.
public enum PipelineError: Error, CustomStringConvertible {
    /// Step `index` (zero-based) named `name` threw `underlying` on its last of `attempts` attempts.
    /// Children of a parallel step are named `parent/child`.
    case stepFailed(index: Int, name: String, attempts: Int, underlying: any Error)
    /// Step `index` named `name` did not finish within `after` on its last of `attempts` attempts.
    case timedOut(index: Int, name: String, attempts: Int, after: Duration)
    /// The run was cancelled (by `PipelineRun.cancel()` or by cancelling the task that runs it).
    case cancelled

    /// The zero-based index of the step concerned, or nil for `cancelled`.
    public var stepIndex: Int? {
        switch self {
        case let .stepFailed(index, _, _, _), let .timedOut(index, _, _, _): index
        case .cancelled: nil
        }
    }

    /// The name of the step concerned, or nil for `cancelled`.
    public var stepName: String? {
        switch self {
        case let .stepFailed(_, name, _, _), let .timedOut(_, name, _, _): name
        case .cancelled: nil
        }
    }

    /// The error the step threw, for `stepFailed`.
    public var underlying: (any Error)? {
        if case let .stepFailed(_, _, _, underlying) = self { return underlying }
        return nil
    }

    /// A message naming the step, its position and the cause.
    public var description: String {
        switch self {
        case let .stepFailed(index, name, attempts, underlying):
            return "pipeline step \(index + 1) '\(name)' failed after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(underlying)"
        case let .timedOut(index, name, attempts, after):
            return "pipeline step \(index + 1) '\(name)' timed out after \(after) (attempt \(attempts)); raise its timeout or make the step faster"
        case .cancelled:
            return "pipeline cancelled before it finished"
        }
    }

    /// Turns whatever a step or checkpoint threw into the pipeline's error: pipeline errors pass
    /// through, anything thrown while the run is cancelled becomes `cancelled`.
    @usableFromInline
    static func normalize(_ error: any Error, context: RunContext, index: Int, name: String, attempts: Int) -> PipelineError {
        normalize(error, cancelled: context.isCancelled, index: index, name: name, attempts: attempts)
    }

    /// `normalize` for a run without a `RunContext` (nobody can pause or cancel it but its task):
    /// `cancelled` is the task's cancelled bit.
    @usableFromInline
    static func normalize(_ error: any Error, cancelled: Bool, index: Int, name: String, attempts: Int) -> PipelineError {
        if cancelled { return .cancelled }
        if let error = error as? PipelineError { return error }
        if let timeout = error as? PipelineStepTimeout {
            return .timedOut(index: index, name: name, attempts: attempts, after: timeout.duration)
        }
        return .stepFailed(index: index, name: name, attempts: attempts, underlying: error)
    }
}

/// Thrown inside a step's attempt when its timeout elapses; a `RetryPolicy.shouldRetry` predicate
/// sees this error, and the pipeline reports it as `PipelineError.timedOut`.
public struct PipelineStepTimeout: Error, Hashable, CustomStringConvertible {
    /// The timeout that elapsed.
    public let duration: Duration

    /// Creates the error for a timeout of `duration`.
    public init(duration: Duration) {
        self.duration = duration
    }

    /// A message naming the timeout.
    public var description: String { "step timed out after \(duration)" }
}
