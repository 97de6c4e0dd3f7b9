import TandemSynchronization
import TandemServer

/// A `TimerScheduler` driven by hand: time moves only when `advance(by:)` is called.
/// For tests of timer-driven rules, with no sleeping and no flakiness.
public final class ManualTimerScheduler: TimerScheduler {
    private struct Entry {
        var id: Int
        var deadline: Duration
        var work: @Sendable () -> Void
    }

    private struct State {
        var now: Duration = .zero
        var nextID = 0
        var entries: [Entry] = []
    }

    private let state = Locked(State())

    /// Creates a scheduler at time zero.
    public init() {}

    /// The scheduler's current time since creation.
    public var now: Duration { state.withLock { $0.now } }

    /// Number of timers waiting to fire.
    public var pendingCount: Int { state.withLock { $0.entries.count } }

    /// See `TimerScheduler.schedule(after:_:)`.
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any ScheduledTimer {
        let id = state.withLock { state in
            state.nextID += 1
            state.entries.append(Entry(id: state.nextID, deadline: state.now + delay, work: work))
            return state.nextID
        }
        return ManualTimer { [weak self] in
            self?.state.withLock { $0.entries.removeAll { $0.id == id } }
        }
    }

    /// Moves time forward, running every timer that comes due, earliest first (timers scheduled
    /// by those timers run too when they fall within the advance).
    public func advance(by duration: Duration) {
        let target = state.withLock { $0.now + duration }
        while true {
            let due: Entry? = state.withLock { state in
                guard let index = state.entries.indices.min(by: { state.entries[$0].deadline < state.entries[$1].deadline }),
                      state.entries[index].deadline <= target
                else { return nil }
                let entry = state.entries.remove(at: index)
                state.now = max(state.now, entry.deadline)
                return entry
            }
            guard let due else { break }
            due.work()
        }
        state.withLock { $0.now = target }
    }
}

private struct ManualTimer: ScheduledTimer {
    let onCancel: @Sendable () -> Void
    func cancel() { onCancel() }
}
