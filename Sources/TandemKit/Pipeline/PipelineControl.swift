/// The controls of a running job, shaped like the original WaterfallTask `Task` protocol so code
/// migrating from it keeps its call sites: `isRunning`, `isCancelled`, `start()`, `resume()`, `cancel()`.
public protocol PipelineControl: Sendable {
    /// True after start until the job finishes, except while paused or after a cancel took effect.
    var isRunning: Bool { get }
    /// True once `cancel()` took effect (the job had not finished yet).
    var isCancelled: Bool { get }
    /// Starts the job; does nothing if it was already started, finished or cancelled.
    func start()
    /// Resumes a paused job, or starts one that was not started yet.
    func resume()
    /// Cancels the job; returns whether the cancel took effect (false once the job has finished).
    @discardableResult func cancel() -> Bool
}
