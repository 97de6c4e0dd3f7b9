import TandemWire

/// A task executor that runs jobs on an `EventLoop`'s thread.
///
/// The proxy opens each target connection from a task that prefers this executor, so the connect never
/// waits for a thread of the shared cooperative pool: a pool kept busy by blocking work elsewhere in the
/// process cannot stall new relayed connections. Jobs submitted after the loop shut down are dropped.
final class LoopTaskExecutor: TaskExecutor {
    let loop: EventLoop

    init(loop: EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
