import TandemWire

/// The server's event loops as commit stages: a job submitted on a loop is committed by that loop at the
/// end of its iteration, and the completions' frames are queued behind frames other threads handed the
/// loop earlier (`EventLoop.withQueuedSends`), so a connection's frames keep their order whichever
/// thread committed.
public struct EventLoopCommitStages: CommitStages {
    /// The stage of whichever loop calls.
    public init() {}

    /// The calling thread's loop.
    public func current() -> (any CommitStage)? { EventLoop.current }
}

extension EventLoop: CommitStage {
    /// Queues `work` behind what the loop has to do (see `execute`).
    public func runAtIterationEnd(_ work: @escaping @Sendable () -> Void) -> Bool { execute(work) }

    /// Runs `completions` with this loop's sends queued (see `withQueuedSends`).
    public func deliver(_ completions: () -> Void) { withQueuedSends(completions) }
}
