import Synchronization

/// The shared state of one pipeline execution: environment, progress sink, and the pause/cancel
/// flags every step boundary checks.
///
/// The flags are an atomic so that an unpaused, uncancelled run pays one load per step and takes
/// no lock; the lock is only taken to park or wake a paused run.
final class RunContext: Sendable {
    private static let pausedBit: UInt8 = 1
    private static let cancelledBit: UInt8 = 2

    let environment: PipelineEnvironment
    let count: Int
    let progress: (@Sendable (PipelineProgress) -> Void)?
    private let flags = Atomic<UInt8>(0)
    private let pauseWaiter = Mutex<CheckedContinuation<Void, any Error>?>(nil)

    init(environment: PipelineEnvironment, count: Int, progress: (@Sendable (PipelineProgress) -> Void)?) {
        self.environment = environment
        self.count = count
        self.progress = progress
    }

    /// True once the run was cancelled, or when the task running it was cancelled.
    var isCancelled: Bool {
        flags.load(ordering: .acquiring) & Self.cancelledBit != 0 || Task.isCancelled
    }

    /// True while a pause is requested.
    var isPaused: Bool {
        flags.load(ordering: .acquiring) & Self.pausedBit != 0
    }

    /// Called before step `index` starts: throws `PipelineError.cancelled` if cancelled, waits
    /// while paused, then reports the step as started.
    @inline(__always)
    func checkpoint(_ index: Int, _ name: String) async throws {
        if flags.load(ordering: .acquiring) != 0 || Task.isCancelled {
            try await waitUntilRunnable(index, name)
        }
        progress?(PipelineProgress(index: index, count: count, name: name, phase: .started))
    }

    /// Reports that step `index` returned.
    @inline(__always)
    func finished(_ index: Int, _ name: String) {
        progress?(PipelineProgress(index: index, count: count, name: name, phase: .finished))
    }

    private func waitUntilRunnable(_ index: Int, _ name: String) async throws {
        while true {
            if isCancelled { throw PipelineError.cancelled }
            guard isPaused else { return }
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let parked = pauseWaiter.withLock { waiter -> Bool in
                    let current = flags.load(ordering: .acquiring)
                    guard current & Self.pausedBit != 0, current & Self.cancelledBit == 0 else { return false }
                    waiter = continuation
                    return true
                }
                if parked {
                    progress?(PipelineProgress(index: index, count: count, name: name, phase: .paused))
                } else {
                    continuation.resume()
                }
            }
        }
    }

    func pause() {
        pauseWaiter.withLock { _ in
            _ = flags.bitwiseOr(Self.pausedBit, ordering: .acquiringAndReleasing)
        }
    }

    func resume() {
        let waiter = pauseWaiter.withLock { waiter in
            _ = flags.bitwiseAnd(~Self.pausedBit, ordering: .acquiringAndReleasing)
            defer { waiter = nil }
            return waiter
        }
        waiter?.resume()
    }

    func cancel() {
        let waiter = pauseWaiter.withLock { waiter in
            _ = flags.bitwiseOr(Self.cancelledBit, ordering: .acquiringAndReleasing)
            defer { waiter = nil }
            return waiter
        }
        waiter?.resume(throwing: PipelineError.cancelled)
    }
}
