import Synchronization
import TandemRedis

/// Group commit across rooms: a few script calls at Redis at a time; when they are all out, the rooms'
/// batches that arrive meanwhile wait and go together in the next call, so under load the cost of a
/// call (the Lua call, the reply, a read and a write on each side) is shared by every room that had
/// patches ready, while a batch that finds a call free goes at once.
///
/// Thread-safe. A call's failure fails every batch it carried (each caller decides what to resend).
final class AppendCoalescer: Sendable {
    private struct Waiting {
        var batch: RedisRoomSequencer.RoomBatch
        var continuation: CheckedContinuation<Result<[SequencerOutcome], RedisError>, Never>
    }

    private struct State {
        var waiting: [Waiting] = []
        var senders = 0
        var carried = 0
    }

    /// The most room batches one call carries.
    static var maxRooms: Int { 64 }
    /// The most calls at Redis at once. One alone makes every batch wait for the call in flight.
    static var maxCalls: Int { 4 }

    private let state = Mutex(State())

    /// The room batches waiting or carried by the calls at Redis.
    var pending: Int { state.withLock { $0.waiting.count + $0.carried } }

    /// Sequences `batch` through `sequencer`, with the other rooms' batches waiting at that moment.
    func append(_ batch: RedisRoomSequencer.RoomBatch, through sequencer: RedisRoomSequencer) async throws(RedisError) -> [SequencerOutcome] {
        let result = await withCheckedContinuation { continuation in
            let start = state.withLock { state in
                state.waiting.append(Waiting(batch: batch, continuation: continuation))
                guard state.senders < Self.maxCalls else { return false }
                state.senders += 1
                return true
            }
            if start { Task { await self.send(through: sequencer) } }
        }
        return try result.get()
    }

    /// Sends what waits, call after call, until nothing does (one of up to `maxCalls` senders).
    private func send(through sequencer: RedisRoomSequencer) async {
        while true {
            let calls = state.withLock { state -> [Waiting] in
                let taken = Array(state.waiting.prefix(Self.maxRooms))
                state.waiting.removeFirst(taken.count)
                state.carried += taken.count
                if taken.isEmpty { state.senders -= 1 }
                return taken
            }
            guard !calls.isEmpty else { return }
            do throws(RedisError) {
                let outcomes = try await sequencer.append(calls.map(\.batch))
                state.withLock { $0.carried -= calls.count }
                for (waiting, result) in zip(calls, outcomes) { waiting.continuation.resume(returning: .success(result)) }
            } catch {
                state.withLock { $0.carried -= calls.count }
                for waiting in calls { waiting.continuation.resume(returning: .failure(error)) }
            }
        }
    }
}
