import Synchronization

/// A clock for pipeline tests: time moves only when the test advances it (or, in immediate mode,
/// every sleep returns at once and moves time to its deadline). Records every requested sleep.
final class PipelineTestClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Sleeper] = []
        var cancelledIDs: Set<Int> = []
        var requested: [Duration] = []
        var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())
    private let immediate: Bool

    init(immediate: Bool = false) {
        self.immediate = immediate
    }

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// Every sleep duration requested so far, in order.
    var requestedSleeps: [Duration] { state.withLock { $0.requested } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, fire, cancel }
                let (outcome, ready) = state.withLock { state -> (Outcome, [CheckedContinuation<Void, Never>]) in
                    state.requested.append(state.now.duration(to: deadline))
                    if state.cancelledIDs.remove(id) != nil { return (.cancel, []) }
                    if immediate {
                        if state.now < deadline { state.now = deadline }
                        return (.fire, [])
                    }
                    if deadline <= state.now { return (.fire, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (.wait, Self.takeReadyWaiters(&state))
                }
                for waiter in ready { waiter.resume() }
                switch outcome {
                case .wait: break
                case .fire: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                if let index = state.sleepers.firstIndex(where: { $0.id == id }) {
                    return state.sleepers.remove(at: index)
                }
                state.cancelledIDs.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
    func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` sleepers are waiting on this clock.
    func waitForSleepers(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.sleeperWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func takeReadyWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = state.sleepers.count
        let ready = state.sleeperWaiters.filter { $0.count <= count }.map(\.continuation)
        state.sleeperWaiters.removeAll { $0.count <= count }
        return ready
    }
}
