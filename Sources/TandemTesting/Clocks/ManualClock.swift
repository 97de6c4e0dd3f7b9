import TandemSynchronization

/// A clock whose time moves only when told to, so that time-dependent TandemKit code (toast
/// durations, callback time-outs, retry back-off) runs in tests without real sleeping.
///
/// Thread-safe: any task may sleep on it, advance it or wait for sleepers. Sleepers whose deadline
/// is reached are resumed in deadline order (ties in the order they started sleeping); a sleeping
/// task that is cancelled is resumed at once with `CancellationError` and removed.
public final class ManualClock: Clock, Sendable {
    /// A point on a `ManualClock`: the time elapsed since the clock's zero.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// Time since the clock's zero; may be negative after `advanced(by:)` with a negative duration.
        public var offset: Duration

        /// Creates the instant `offset` after the clock's zero.
        public init(offset: Duration) { self.offset = offset }

        /// The instant `duration` later than this one.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        /// The time from this instant to `other` (negative when `other` is earlier).
        public func duration(to other: Instant) -> Duration { other.offset - offset }

        /// Orders instants by their offset.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }

        /// The offset, e.g. `t+1.5 seconds`.
        public var description: String { "t+\(offset)" }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Instant
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var watchers: [Watcher] = []
        /// Ids whose task was cancelled before the sleeper was registered.
        var cancelledEarly: Set<UInt64> = []
    }

    private let state: Locked<State>

    /// Creates a clock that reads `now` (its zero by default).
    public init(now: Instant = Instant(offset: .zero)) {
        state = Locked(State(now: now))
    }

    /// The clock's current time; changes only through `advance(by:)` and `advance(to:)`.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: a manual clock can represent any duration exactly.
    public var minimumResolution: Duration { .zero }

    /// The number of tasks currently sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock has been advanced to `deadline` (returns at once if it already has).
    ///
    /// Throws `CancellationError` if the calling task is cancelled before the deadline.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else {
                    notifyWatchers()
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    // Not registered yet (or already resumed): remember, so registration fails fast.
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        // A resumed sleeper leaves its id behind only if cancellation raced with resumption.
        state.withLock { _ = $0.cancelledEarly.remove(id) }
    }

    /// Moves the clock forward by `duration` and resumes every sleeper whose deadline is now reached.
    ///
    /// A negative duration is a programming error and is treated as zero: time never runs backwards.
    public func advance(by duration: Duration) {
        let target = state.withLock { $0.now.advanced(by: max(duration, .zero)) }
        advance(to: target)
    }

    /// Moves the clock to `instant` (if it is later than `now`) and resumes due sleepers in deadline order.
    public func advance(to instant: Instant) {
        let due = state.withLock { state -> [Sleeper] in
            if instant > state.now { state.now = instant }
            let now = state.now
            // A stable partition keeps the start order among sleepers with equal deadlines.
            let ready = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return ready.enumerated()
                .sorted { ($0.element.deadline, $0.offset) < ($1.element.deadline, $1.offset) }
                .map(\.element)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Suspends until at least `count` tasks are sleeping on the clock.
    ///
    /// Tests call this before `advance` so that the code under test has reached its sleep:
    /// advancing earlier would move time past a deadline nobody was waiting for yet.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let satisfied = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.watchers.append(Watcher(count: count, continuation: continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }

    private func notifyWatchers() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let count = state.sleepers.count
            let ready = state.watchers.filter { $0.count <= count }.map(\.continuation)
            state.watchers.removeAll { $0.count <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}
