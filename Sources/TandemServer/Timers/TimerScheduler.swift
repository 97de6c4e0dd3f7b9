/// Runs work after a delay; injected so that timer-driven rules (presence grace, room unload,
/// hello timeout) are tested with a manual clock instead of sleeping.
public protocol TimerScheduler: Sendable {
    /// Runs `work` once after `delay`, unless the returned timer is cancelled first.
    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any ScheduledTimer
}

/// A pending piece of scheduled work.
public protocol ScheduledTimer: Sendable {
    /// Prevents the work from running if it has not started yet. Idempotent.
    func cancel()
}
