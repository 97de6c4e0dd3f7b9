import TandemWire

/// A `TimerScheduler` on an event loop's timer heap: cheap enough for one timer per
/// connection (the hello deadline), and the work runs on that loop's thread.
struct EventLoopTimerScheduler: TimerScheduler {
    let loop: EventLoop

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any ScheduledTimer {
        EventLoopTimer(task: loop.schedule(after: delay, work))
    }
}

private struct EventLoopTimer: ScheduledTimer {
    let task: ScheduledTask
    func cancel() { task.cancel() }
}
