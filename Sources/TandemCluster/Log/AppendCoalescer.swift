import TandemSynchronization
import TandemRedis

/// Group commit across rooms, paced: calls start at least `interval` apart and at most a few are at
/// Redis at once. The rooms' batches that arrive while the next call may not start yet wait and go
/// together in it, so under load the cost of a call (the script run, the reply, a read and a write on
/// each side, the change messages) is shared by every room that had patches ready, and the number of
/// calls a node makes per second is bounded (`1 / interval`) whatever its load. A batch that finds a
/// call allowed goes at once: pacing adds latency only under load, at most `interval`.
///
/// A room does better than queue a batch for the next call: it waits for its turn (`turn()`) and takes
/// its batch when the pause ends, so the patches that reach it during the pause go in the same batch
/// (one log entry, one change message) instead of the call after. The call then waits until every room
/// let in has handed its batch over (`append(_:through:admitted:)`) or withdrawn (`withdraw(through:)`).
///
/// Thread-safe. A call's failure fails every batch it carried (each caller decides what to resend).
final class AppendCoalescer: Sendable {
    private struct Waiting {
        var batch: RedisRoomSequencer.RoomBatch
        var continuation: CheckedContinuation<Result<[SequencerOutcome], RedisError>, Never>
    }

    private struct State {
        var waiting: [Waiting] = []
        /// Rooms waiting for the pause to end before they take their batch.
        var turns: [CheckedContinuation<Bool, Never>] = []
        /// Rooms let in when a pause ended whose batches have not come yet: no call starts until they have.
        var gathering = 0
        var senders = 0
        var carried = 0
        /// A call started less than `interval` ago: batches wait for the pause to end.
        var paused = false
    }

    /// The most room batches one call carries.
    static var maxRooms: Int { 64 }
    /// The most calls at Redis at once. One alone makes every batch wait for the call in flight.
    static var maxCalls: Int { 4 }

    /// The least time between the starts of two calls (zero: calls go as soon as a sender is free).
    let interval: Duration
    private let clock: any Clock<Duration>
    private let state = Locked(State())

    /// A coalescer whose calls start at least `interval` apart, timed by `clock`.
    init(interval: Duration = .zero, clock: any Clock<Duration> = ContinuousClock()) {
        self.interval = interval
        self.clock = clock
    }

    /// The room batches waiting (a room waiting for its turn counts as one) or carried by the calls at Redis.
    var pending: Int { state.withLock { $0.waiting.count + $0.turns.count + $0.gathering + $0.carried } }

    /// Whether a call started less than `interval` ago, so that batches wait.
    var paused: Bool { state.withLock { $0.paused } }

    /// Waits while a pause runs, so that the caller takes its room's batch when the next call may start.
    /// Returns at once, false, when no pause runs. True means the next call waits for the caller: it
    /// must then hand its batch over with `append(_:through:admitted: true)` or call `withdraw(through:)`,
    /// exactly once.
    func turn() async -> Bool {
        guard paused else { return false }
        return await withCheckedContinuation { continuation in
            let waits = state.withLock { state in
                guard state.paused else { return false }
                state.turns.append(continuation)
                return true
            }
            if !waits { continuation.resume(returning: false) }
        }
    }

    /// Tells the coalescer that a room let in by `turn()` has no batch after all.
    func withdraw(through sequencer: RedisRoomSequencer) {
        let start = state.withLock { state in
            state.gathering -= 1
            return Self.claimSender(&state)
        }
        if start { Task { await self.send(through: sequencer) } }
    }

    /// Sequences `batch` through `sequencer`, with the other rooms' batches waiting at that moment.
    /// - Parameter admitted: the caller was let in by `turn()` returning true.
    func append(_ batch: RedisRoomSequencer.RoomBatch, through sequencer: RedisRoomSequencer,
                admitted: Bool = false) async throws(RedisError) -> [SequencerOutcome] {
        let result = await withCheckedContinuation { continuation in
            let start = state.withLock { state in
                state.waiting.append(Waiting(batch: batch, continuation: continuation))
                if admitted { state.gathering -= 1 }
                return Self.claimSender(&state)
            }
            if start { Task { await self.send(through: sequencer) } }
        }
        return try result.get()
    }

    /// Whether a new sender may start now (and counts it): batches wait, no pause, no room let in still
    /// to come, a call slot free.
    private static func claimSender(_ state: inout State) -> Bool {
        guard !state.paused, state.gathering == 0, !state.waiting.isEmpty, state.senders < maxCalls else { return false }
        state.senders += 1
        return true
    }

    /// Sends what waits, call after call, until nothing does or a pause begins (one of up to `maxCalls`
    /// senders). The end of a pause, or the last room let in, starts a sender again if batches wait.
    private func send(through sequencer: RedisRoomSequencer) async {
        let paces = interval > .zero
        while true {
            let calls = state.withLock { state -> [Waiting] in
                guard !state.paused, state.gathering == 0 else {
                    state.senders -= 1
                    return []
                }
                let taken = Array(state.waiting.prefix(Self.maxRooms))
                state.waiting.removeFirst(taken.count)
                state.carried += taken.count
                if taken.isEmpty { state.senders -= 1 } else if paces { state.paused = true }
                return taken
            }
            guard !calls.isEmpty else { return }
            if paces { Task { await self.endPause(through: sequencer) } }
            let outcomes = await sequencer.appendRouted(calls.map(\.batch))
            state.withLock { $0.carried -= calls.count }
            for (waiting, result) in zip(calls, outcomes) { waiting.continuation.resume(returning: result) }
        }
    }

    /// Ends the pause a call began, `interval` after it: lets the waiting rooms in, and sends what waits
    /// once they are all there.
    private func endPause(through sequencer: RedisRoomSequencer) async {
        try? await clock.sleep(for: interval)
        let (start, turns) = state.withLock { state in
            state.paused = false
            let turns = state.turns
            state.turns = []
            state.gathering += turns.count
            return (Self.claimSender(&state), turns)
        }
        for turn in turns { turn.resume(returning: true) }
        if start { await send(through: sequencer) }
    }
}
