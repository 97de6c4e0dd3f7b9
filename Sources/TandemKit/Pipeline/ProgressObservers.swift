import TandemSynchronization

/// The progress-stream subscribers of a run. An atomic flag lets an unobserved run skip the lock
/// on every step.
final class ProgressObservers: Sendable {
    private let any = AtomicValue<Bool>(false)
    private let continuations = Locked<[AsyncStream<PipelineProgress>.Continuation]>([])

    func add(_ continuation: AsyncStream<PipelineProgress>.Continuation) {
        continuations.withLock { list in
            list.append(continuation)
            any.store(true, ordering: .releasing)
        }
    }

    func removeAll() {
        continuations.withLock { list in
            list.removeAll()
            any.store(false, ordering: .releasing)
        }
    }

    func emit(_ event: PipelineProgress) {
        guard any.load(ordering: .acquiring) else { return }
        for continuation in continuations.withLock({ $0 }) { continuation.yield(event) }
    }
}
