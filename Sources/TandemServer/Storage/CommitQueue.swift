import Foundation

/// The single writer in front of a `RoomStore`: a dedicated thread that runs every storage job
/// in submission order and commits the writes that queued up together in one transaction
/// (group commit).
///
/// Guarantees: completions are called in submission order, each exactly once, on the queue's
/// thread, after the job's writes are committed (or failed). Batching costs no added latency:
/// the writer never waits for more work; whatever arrived while the last commit ran forms the
/// next batch. A failing batch is retried job by job, so one bad job fails only itself.
public final class CommitQueue: Sendable {
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

    /// The store is confined to the writer thread; this box only carries it there, and lets
    /// the thread drop it (closing the database) before `shutdown()` returns.
    private final class StoreBox: @unchecked Sendable {
        var store: (any RoomStore)?
        init(_ store: any RoomStore) { self.store = store }
    }

    private let condition = NSCondition()
    // Guarded by `condition`; `nonisolated(unsafe)` because NSCondition is the lock.
    nonisolated(unsafe) private var state = State()
    private let maxBatch: Int
    private let deliver: @Sendable (() -> Void) -> Void

    /// Starts the writer thread for `store`, which must not be used by anyone else afterwards.
    /// - Parameters:
    ///   - maxBatch: most write jobs committed in one transaction.
    ///   - deliver: runs the loop that calls a committed batch's completions (in order, on the
    ///     writer thread), e.g. inside `WakeupCoalescing.batch` so the event loops those
    ///     completions hand acks to are woken once per batch rather than once per ack.
    public init(store: any RoomStore, maxBatch: Int = 4096, deliver: @escaping @Sendable (() -> Void) -> Void = { $0() }) {
        self.maxBatch = max(1, maxBatch)
        self.deliver = deliver
        let box = StoreBox(store)
        let thread = Thread { [self] in self.runLoop(box) }
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

    private func enqueue(_ job: Job, rejected: () -> Void) {
        condition.lock()
        guard !state.stopping else {
            condition.unlock()
            rejected()
            return
        }
        state.jobs.append(job)
        // A busy writer takes the job with the rest when its commit is done: no wake-up needed.
        if state.writerWaiting { condition.signal() }
        condition.unlock()
    }

    private func runLoop(_ box: StoreBox) {
        guard let store = box.store else { return }
        var jobs: [Job] = []
        var batch = Batch()
        while true {
            condition.lock()
            while state.jobs.isEmpty && !state.stopping {
                state.writerWaiting = true
                condition.wait()
                state.writerWaiting = false
            }
            if state.jobs.isEmpty && state.stopping {
                // Release the store (and close its files) before anyone learns we stopped, so a
                // new server can open the same data folder at once.
                box.store = nil
                state.stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            // Swap buffers: submitters append to the (emptied) array the writer used last time.
            swap(&jobs, &state.jobs)
            condition.unlock()
            run(jobs, into: &batch, on: store)
            jobs.removeAll(keepingCapacity: true)
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
