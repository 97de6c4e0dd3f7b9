import Dispatch
import TandemSynchronization
import TandemProtocol

/// A `TimerScheduler` on a Dispatch queue: for rare, coarse timers (presence grace, unloading
/// idle rooms), not for per-message deadlines.
public struct DispatchTimerScheduler: TimerScheduler {
    private let queue: DispatchQueue

    /// Creates a scheduler that runs work on `queue`.
    public init(queue: DispatchQueue = DispatchQueue(label: "tandem.timers")) {
        self.queue = queue
    }

    /// See `TimerScheduler.schedule(after:_:)`.
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any ScheduledTimer {
        let timer = DispatchScheduledTimer()
        let nanoseconds = max(0, delay.totalNanoseconds)
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) {
            if timer.claim() { work() }
        }
        return timer
    }
}

/// One Dispatch-scheduled timer; whichever of `cancel` and firing comes first wins.
final class DispatchScheduledTimer: ScheduledTimer {
    private let done = AtomicValue<Bool>(false)

    func cancel() { _ = claim() }

    /// Marks the timer as finished; returns `true` for the first caller only.
    func claim() -> Bool {
        done.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
