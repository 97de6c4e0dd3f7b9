import TandemWire

/// A task executor that runs jobs on an `EventLoop`'s thread.
///
/// The proxy opens each target connection from a task that prefers this executor, so the connect never
/// waits for a thread of the shared cooperative pool: a pool kept busy by blocking work elsewhere in the
/// process cannot stall new relayed connections. Jobs submitted after the loop shut down are dropped.
/// Task executors arrived with macOS 15; older systems connect from the shared pool.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
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
