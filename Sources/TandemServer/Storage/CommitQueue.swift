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

    /// Starts the writer thread for `store`, which must not be used by anyone else afterwards.
    /// - Parameter maxBatch: most write jobs committed in one transaction.
    public init(store: any RoomStore, maxBatch: Int = 4096) {
        self.maxBatch = max(1, maxBatch)
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
        condition.signal()
        condition.unlock()
    }

    private func runLoop(_ box: StoreBox) {
        guard let store = box.store else { return }
        while true {
            condition.lock()
            while state.jobs.isEmpty && !state.stopping { condition.wait() }
            if state.jobs.isEmpty && state.stopping {
                // Release the store (and close its files) before anyone learns we stopped, so a
                // new server can open the same data folder at once.
                box.store = nil
                state.stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let jobs = state.jobs
            state.jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            run(jobs, on: store)
        }
    }

    private func run(_ jobs: [Job], on store: any RoomStore) {
        var pending: [([StorageWrite], @Sendable (Result<Void, StorageError>) -> Void)] = []
        func commitPending() {
            guard !pending.isEmpty else { return }
            commit(pending, on: store)
            pending.removeAll(keepingCapacity: true)
        }
        for job in jobs {
            switch job {
            case .write(let writes, let completion):
                pending.append((writes, completion))
                if pending.count >= maxBatch { commitPending() }
            case .read(let body):
                commitPending()
                body(store)
            }
        }
        commitPending()
    }

    private func commit(_ batch: [([StorageWrite], @Sendable (Result<Void, StorageError>) -> Void)], on store: any RoomStore) {
        do {
            try store.apply(batch.flatMap(\.0))
            for (_, completion) in batch { completion(.success(())) }
        } catch {
            guard batch.count > 1 else {
                batch[0].1(.failure(error))
                return
            }
            // Isolate the failure: every job gets its own outcome.
            for (writes, completion) in batch {
                do {
                    try store.apply(writes)
                    completion(.success(()))
                } catch {
                    completion(.failure(error))
                }
            }
        }
    }
}
