import TandemSynchronization

/// The shared state of one pipeline execution: environment, progress sink, and the pause/cancel
/// flags every step boundary checks.
///
/// The flags are an atomic so that an unpaused, uncancelled run pays one load per step (plus the
/// task's cancelled bit) and takes no lock; the lock is only taken to park or wake a paused run.
@usableFromInline
final class RunContext: Sendable {
    private static let pausedBit: UInt8 = 1
    private static let cancelledBit: UInt8 = 2

    let environment: PipelineEnvironment
    let count: Int
    @usableFromInline
    let progress: (@Sendable (PipelineProgress) -> Void)?
    @usableFromInline
    let flags = AtomicValue<UInt8>(0)
    private let pauseWaiter = Locked<CheckedContinuation<Void, any Error>?>(nil)

    @usableFromInline
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

    /// Whether step boundaries must take the slow path: a pause or cancel was requested, or the
    /// task running the pipeline was cancelled. An atomic load and the task's cancelled bit: runs
    /// that nobody controls take no lock, and `Pipeline.run` needs no cancellation handler (whose
    /// registration and removal cost more per run than reading the bit at each boundary).
    @inlinable
    var mustWait: Bool {
        flags.load(ordering: .acquiring) != 0 || Task.isCancelled
    }

    /// Reports that step `index` starts; a nil check only when nobody observes progress.
    @inlinable
    func started(_ index: Int, _ name: String) {
        if let progress { report(progress, index, name, .started) }
    }

    /// Reports that step `index` returned.
    @inlinable
    func finished(_ index: Int, _ name: String) {
        if let progress { report(progress, index, name, .finished) }
    }

    @usableFromInline
    func report(_ progress: @Sendable (PipelineProgress) -> Void, _ index: Int, _ name: String, _ phase: PipelineProgress.Phase) {
        progress(PipelineProgress(index: index, count: count, name: name, phase: phase))
    }

    /// The slow path of a step boundary: throws `PipelineError.cancelled` if cancelled, and waits
    /// while paused (reporting `.paused` once parked).
    @usableFromInline
    func waitUntilRunnable(_ index: Int, _ name: String) async throws {
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

    @usableFromInline
    func cancel() {
        let waiter = pauseWaiter.withLock { waiter in
            _ = flags.bitwiseOr(Self.cancelledBit, ordering: .acquiringAndReleasing)
            defer { waiter = nil }
            return waiter
        }
        waiter?.resume(throwing: PipelineError.cancelled)
    }
}
