import Testing
import Synchronization
import TandemKit

/// A one-shot latch: tasks wait until a test opens it. `waitCancellable()` also returns (by
/// throwing) when the waiting task is cancelled, which is how fake steps model cooperative work.
final class PipelineTestGate: Sendable {
    private struct State {
        var isOpen = false
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var cancelledIDs: Set<Int> = []
    }

    private let state = Mutex(State())

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until opened, ignoring cancellation (a step that does not cooperate).
    func waitIgnoringCancellation() async {
        await Task { try? await self.waitCancellable() }.value
    }

    func waitCancellable() async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let action = state.withLock { state -> Int in
                    if state.cancelledIDs.remove(id) != nil { return 2 }
                    if state.isOpen { return 1 }
                    state.waiters[id] = continuation
                    return 0
                }
                if action == 1 { continuation.resume() }
                if action == 2 { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                state.cancelledIDs.insert(id)
                return nil
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}

/// Counts events from any thread.
final class PipelineCounter: Sendable {
    private let value = Atomic<Int>(0)

    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// A test error a fake step throws.
struct PipelineTestError: Error, Equatable, CustomStringConvertible {
    let message: String
    var description: String { message }
}

extension PipelineResult {
    /// The output of a successful result, for `#expect`.
    var successValue: Output? {
        if case let .success(value) = self { return value }
        return nil
    }

    /// The error of a failed result.
    var failureError: PipelineError? {
        if case let .failure(error) = self { return error }
        return nil
    }
}

extension AsyncStream where Element == PipelineProgress {
    /// Consumes events until one matches `predicate`; returns the events seen, that one included.
    func events(until predicate: (PipelineProgress) -> Bool) async -> [PipelineProgress] {
        var seen: [PipelineProgress] = []
        for await event in self {
            seen.append(event)
            if predicate(event) { break }
        }
        return seen
    }
}

/// Runs `pipeline` in a task whose first step (built by `makeFirst`) ignores cancellation until released,
/// cancels the task while that step runs, and checks that the run ends `.cancelled` without starting
/// the step counted by `later`.
func expectCancelledBeforeTheLaterStep<Output: Sendable>(
    _ makePipeline: (_ firstStep: @escaping @Sendable (Int) async -> Void) -> Pipeline<Int, Output>,
    later: PipelineCounter,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    let entered = PipelineTestGate()
    let release = PipelineTestGate()
    let pipeline = makePipeline { _ in
        entered.open()
        await release.waitIgnoringCancellation()
    }
    let task = Task { try await pipeline.run(1) }
    try? await entered.waitCancellable()
    task.cancel()
    release.open()
    let outcome = await task.result
    guard case let .failure(error) = outcome, case .cancelled? = error as? PipelineError else {
        Issue.record("expected cancelled, got \(outcome)", sourceLocation: sourceLocation)
        return
    }
    #expect(later.count == 0, sourceLocation: sourceLocation)
}

