import Foundation

/// The single writer in front of a `RoomStore`: one commit lane that runs every storage job in
/// submission order and commits the writes that queued up together in one transaction (group
/// commit).
///
/// Who commits: the queue's own thread; or, given `stages` (for a store whose commits take microseconds),
/// a job submitted on a stage's thread (an event loop) is committed by that thread at the end of its
/// current iteration, with whatever else queued meanwhile, so a patch's ack and fan-out leave in the
/// same iteration without a hand-off to another thread and back. Jobs from any other thread, and jobs
/// left over while another committer held the lane, still go to the queue's own thread. One committer at a time.
///
/// Guarantees: completions are called in submission order, each exactly once, after the job's writes
/// are committed (or failed), on the committing thread; never on the submitter's stack, so a submitter may hold
/// its own lock while it submits (after `shutdown()`, refusals run in order on a queue of their own). Batching costs no added latency: a committer
/// never waits for more work; whatever arrived while the last commit ran forms the next batch. A
/// failing batch is retried job by job, so one bad job fails only itself.
public final class CommitQueue: Sendable {
    /// Where submissions after `shutdown()` are refused, in order, off the submitter's stack.
    private let refusals = DispatchQueue(label: "tandem-commit-refusals")

    private enum Job {
        case write([StorageWrite], @Sendable (Result<Void, StorageError>) -> Void)
        case read(@Sendable (any RoomStore) -> Void)
    }

    private struct State {
        var jobs: [Job] = []
        var stopping = false
        var stopped = false
        /// The writer is parked in `wait()`: only then does a submission need to signal.
        var writerWaiting = false
        /// Someone (the writer or a stage) holds the lane: took jobs and has not finished their completions.
        var committing = false
        /// The stages that will drain the queue at the end of their current iteration.
        var drainingStages: [ObjectIdentifier] = []

        /// Jobs wait, the lane is free, and no stage is about to drain them (once stopping, the writer
        /// finishes everything itself).
        var writerHasWork: Bool { !committing && !jobs.isEmpty && (drainingStages.isEmpty || stopping) }
        /// Stopping, and every job is done.
        var writerMayStop: Bool { stopping && jobs.isEmpty && !committing }
    }

    /// The write jobs of one transaction, kept flat so the store gets them without another copy;
    /// reused from batch to batch so a busy queue stops allocating.
    private struct Batch {
        var writes: [StorageWrite] = []
        /// `writes` index where each job's writes end, parallel to `completions`.
        var ends: [Int] = []
        var completions: [@Sendable (Result<Void, StorageError>) -> Void] = []

        var isEmpty: Bool { completions.isEmpty }

        mutating func add(_ jobWrites: [StorageWrite], _ completion: @escaping @Sendable (Result<Void, StorageError>) -> Void) {
            writes.append(contentsOf: jobWrites)
            ends.append(writes.count)
            completions.append(completion)
        }

        mutating func clear() {
            writes.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
            completions.removeAll(keepingCapacity: true)
        }
    }

    /// The store and the batch buffer belong to whoever holds the lane (`State.committing`); taking
    /// and releasing the lane under `condition` orders every use. The writer thread drops the store
    /// (closing the database) before `shutdown()` returns.
    private final class Lane: @unchecked Sendable {
        var store: (any RoomStore)?
        var batch = Batch()
        var jobs: [Job] = []
        init(_ store: any RoomStore) { self.store = store }
    }

    private let condition = NSCondition()
    // Guarded by `condition`; `nonisolated(unsafe)` because NSCondition is the lock.
    nonisolated(unsafe) private var state = State()
    private let lane: Lane
    private let stages: (any CommitStages)?
    private let maxBatch: Int
    private let deliver: @Sendable (() -> Void) -> Void

    /// Starts the writer thread for `store`, which must not be used by anyone else afterwards.
    /// - Parameters:
    ///   - maxBatch: most write jobs committed in one transaction.
    ///   - stages: the threads that commit the jobs submitted on them (see the type's documentation). Only
    ///     for a store whose commits never block: a stage's other work waits for them. When nil, the
    ///     queue's own thread commits everything.
    ///   - deliver: runs the loop that calls a committed batch's completions (in order, on the
    ///     committing thread), e.g. inside `WakeupCoalescing.batch` so the event loops those
    ///     completions hand acks to are woken once per batch rather than once per ack.
    public init(store: any RoomStore, maxBatch: Int = 4096, stages: (any CommitStages)? = nil,
                deliver: @escaping @Sendable (() -> Void) -> Void = { $0() }) {
        self.maxBatch = max(1, maxBatch)
        self.stages = stages
        self.deliver = deliver
        lane = Lane(store)
        let thread = Thread { [self] in self.runLoop() }
        thread.name = "tandem-storage"
        thread.start()
    }

    /// Queues writes to be committed atomically; `completion` runs after the commit.
    public func write(_ writes: [StorageWrite], completion: @escaping @Sendable (Result<Void, StorageError>) -> Void) {
        enqueue(.write(writes, completion)) { completion(.failure(.shutDown)) }
    }

    /// Queues a read that runs on the writer thread between commits, in submission order.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any RoomStore) throws(StorageError) -> T,
                                  completion: @escaping @Sendable (Result<T, StorageError>) -> Void) {
        enqueue(.read({ store in
            do throws(StorageError) { completion(.success(try body(store))) } catch { completion(.failure(error)) }
        })) { completion(.failure(.shutDown)) }
    }

    /// Awaits a read; see `read(_:completion:)`.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any RoomStore) throws(StorageError) -> T) async throws(StorageError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, StorageError>, Never>) in
            read(body) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Awaits a write; see `write(_:completion:)`.
    public func write(_ writes: [StorageWrite]) async throws(StorageError) {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, StorageError>, Never>) in
            write(writes) { continuation.resume(returning: $0) }
        }
        try result.get()
    }

    /// Finishes every queued job, then stops the thread. Later submissions fail with `.shutDown`.
    /// Blocks until the writer has stopped.
    public func shutdown() {
        condition.lock()
        state.stopping = true
        condition.broadcast()
        while !state.stopped { condition.wait() }
        condition.unlock()
    }

    private func enqueue(_ job: Job, rejected: @escaping @Sendable () -> Void) {
        let stage = stages?.current()
        condition.lock()
        guard !state.stopping else {
            condition.unlock()
            refusals.async(execute: rejected)
            return
        }
        state.jobs.append(job)
        if let stage {
            // This stage commits at the end of its iteration; ask it once however many jobs it submits.
            let id = ObjectIdentifier(stage)
            let scheduled = state.drainingStages.contains(id)
            if !scheduled { state.drainingStages.append(id) }
            condition.unlock()
            if !scheduled, !stage.runAtIterationEnd({ [self] in drain(on: stage) }) {
                // The stage's thread is shutting down and will not run the drain: the writer takes over.
                condition.lock()
                state.drainingStages.removeAll { $0 == id }
                if state.writerWaiting { condition.signal() }
                condition.unlock()
            }
            return
        }
        // A busy writer takes the job with the rest when its commit is done: no wake-up needed.
        if state.writerWaiting { condition.signal() }
        condition.unlock()
    }

    /// On a stage's thread, at the end of the iteration that submitted: commits what is queued unless
    /// someone else holds the lane (they hand leftovers to the writer thread). The completions run through
    /// the stage's `deliver`: another committer may have handed it earlier frames for the same connections.
    private func drain(on stage: any CommitStage) {
        let id = ObjectIdentifier(stage)
        condition.lock()
        state.drainingStages.removeAll { $0 == id }
        guard !state.committing, !state.jobs.isEmpty else {
            condition.unlock()
            return
        }
        takeLane()
        condition.unlock()
        stage.deliver { runTakenJobs() }
        condition.lock()
        releaseLane()
        condition.unlock()
    }

    /// Takes the lane and the queued jobs. Call with `condition` locked.
    private func takeLane() {
        state.committing = true
        // Swap buffers: submitters append to the (emptied) array the lane used last time.
        swap(&lane.jobs, &state.jobs)
    }

    /// Gives the lane back; jobs that queued meanwhile and that no stage will drain go to the writer. Call
    /// with `condition` locked.
    private func releaseLane() {
        state.committing = false
        if !state.jobs.isEmpty || state.stopping, state.writerWaiting { condition.signal() }
    }

    private func runTakenJobs() {
        guard let store = lane.store else { return }
        run(lane.jobs, into: &lane.batch, on: store)
        lane.jobs.removeAll(keepingCapacity: true)
    }

    private func runLoop() {
        while true {
            condition.lock()
            while !state.writerHasWork && !state.writerMayStop {
                state.writerWaiting = true
                condition.wait()
                state.writerWaiting = false
            }
            if state.writerMayStop {
                // Release the store (and close its files) before anyone learns we stopped, so a
                // new server can open the same data folder at once.
                lane.store = nil
                state.stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            takeLane()
            condition.unlock()
            runTakenJobs()
            condition.lock()
            releaseLane()
            condition.unlock()
        }
    }

    private func run(_ jobs: [Job], into batch: inout Batch, on store: any RoomStore) {
        for job in jobs {
            switch job {
            case .write(let writes, let completion):
                batch.add(writes, completion)
                if batch.completions.count >= maxBatch { commit(&batch, on: store) }
            case .read(let body):
                commit(&batch, on: store)
                body(store)
            }
        }
        commit(&batch, on: store)
    }

    private func commit(_ batch: inout Batch, on store: any RoomStore) {
        guard !batch.isEmpty else { return }
        defer { batch.clear() }
        do {
            try store.apply(batch.writes)
            deliver { for completion in batch.completions { completion(.success(())) } }
        } catch {
            guard batch.completions.count > 1 else {
                batch.completions[0](.failure(error))
                return
            }
            // Isolate the failure: every job gets its own outcome.
            var start = 0
            for (end, completion) in zip(batch.ends, batch.completions) {
                do {
                    try store.apply(Array(batch.writes[start..<end]))
                    completion(.success(()))
                } catch {
                    completion(.failure(error))
                }
                start = end
            }
        }
    }
}
