/// The threads that may commit a `CommitQueue`'s jobs themselves, in a stage at the end of their current
/// iteration (the server's event loops), so that a patch's ack and fan-out leave in the iteration that
/// received it. Storage knows nothing of loops: the server says which threads have such a stage.
public protocol CommitStages: Sendable {
    /// The calling thread's stage, or nil on any other thread.
    func current() -> (any CommitStage)?
}

/// The end-of-iteration stage of one thread that commits the jobs submitted on it (see `CommitStages`).
public protocol CommitStage: AnyObject, Sendable {
    /// Runs `work` on the stage's thread once its current iteration has done its other work.
    /// - Returns: false (and drops `work`) when the thread no longer runs work.
    func runAtIterationEnd(_ work: @escaping @Sendable () -> Void) -> Bool

    /// Runs a commit's completions on the stage's thread, so that what they send joins, behind it, what
    /// other threads already handed to this thread for the same connections.
    func deliver(_ completions: () -> Void)
}
