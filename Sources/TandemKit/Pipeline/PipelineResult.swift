/// How a pipeline run ended; delivered exactly once per run.
public enum PipelineResult<Output: Sendable>: Sendable {
    /// Every step ran; the last step's output.
    case success(Output)
    /// The first error; no later step ran. Never `PipelineError.cancelled`.
    case failure(PipelineError)
    /// The run was cancelled before it finished; no later step ran.
    case cancelled

    /// The output, or the error (`PipelineError.cancelled` for a cancelled run).
    public func get() throws(PipelineError) -> Output {
        switch self {
        case let .success(output): return output
        case let .failure(error): throw error
        case .cancelled: throw .cancelled
        }
    }

    /// Whether the run was cancelled.
    public var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }
}
