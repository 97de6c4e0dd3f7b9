/// Holds operations until a condition holds ("set the profile only after login succeeded"), then
/// runs them one at a time in submission order with the value the condition produced (a user id,
/// a session).
///
/// Semantics:
/// - `open(_:)`: the condition holds. First every `onEveryOpen` hook runs (registration order),
///   then waiting operations run serially, oldest first. Operations submitted while open run
///   after those already waiting.
/// - `close()`: the condition no longer holds (disconnect). Waiting operations stay queued and
///   run after the next `open`; an operation already running finishes.
/// - `fail(_:)`: the attempt to reach the condition failed (login rejected, logout). Every waiting
///   operation fails with `GateError.conditionFailed`; the gate is closed and later submissions
///   wait for the next `open`.
/// - `finish(_:)`: the gate will never open again (what it guards has ended). Waiting operations and
///   every later submission fail with `GateError.finished`; later `open` calls are ignored.
/// - Cancelling the task that awaits `run` withdraws its operation if it has not started.
/// Every `run` call finishes exactly once.
public actor Gate<Value: Sendable> {
    private struct Waiter {
        var id: UInt64
        var run: @Sendable (Value) async -> Void
        var fail: @Sendable (any Error) -> Void
    }

    private struct Hook {
        var id: UInt64
        var body: @Sendable (Value) async -> Void
        var ranForOpening: UInt64
    }

    /// Identifies a hook registered with `onEveryOpen`, for `removeHook(_:)`.
    public struct HookID: Sendable, Hashable {
        let value: UInt64
    }

    /// The gate's name in error messages, e.g. "IM login".
    public nonisolated let name: String
    private var value: Value?
    private var opening: UInt64 = 0
    private var nextID: UInt64 = 0
    private var waiters: [Waiter] = []
    private var hooks: [Hook] = []
    private var draining = false
    private var finishedError: GateError?

    /// Creates a closed gate.
    public init(name: String) {
        self.name = name
    }

    /// Whether the condition currently holds.
    public var isOpen: Bool { value != nil }

    /// The number of operations waiting (not counting one that is running).
    public var waitingCount: Int { waiters.count }

    /// Records that the condition holds with `value` and starts running hooks and waiting operations.
    public func open(_ value: Value) {
        guard finishedError == nil else { return }
        self.value = value
        opening += 1
        startDraining()
    }

    /// Records that the condition no longer holds; waiting operations stay queued.
    public func close() {
        value = nil
    }

    /// Records that the condition failed: closes the gate and fails every waiting operation with
    /// `GateError.conditionFailed` carrying `reason`'s description.
    public func fail(_ reason: any Error) {
        value = nil
        let failed = waiters
        waiters.removeAll()
        let error = GateError.conditionFailed(gate: name, reason: String(describing: reason))
        for waiter in failed { waiter.fail(error) }
    }

    /// Ends the gate for good: closes it, fails every waiting operation with `GateError.finished`, and
    /// makes every later `run` fail at once the same way. Idempotent; the first reason is kept.
    public func finish(_ reason: any Error) {
        guard finishedError == nil else { return }
        let error = GateError.finished(gate: name, reason: String(describing: reason))
        finishedError = error
        value = nil
        let failed = waiters
        waiters.removeAll()
        for waiter in failed { waiter.fail(error) }
    }

    /// Runs `operation` once the condition holds (at once, after earlier operations, if it does)
    /// and returns its result.
    ///
    /// - Throws: whatever `operation` throws; `GateError.conditionFailed` if the gate fails first;
    ///   `GateError.finished` once the gate was finished; `CancellationError` if the calling task is
    ///   cancelled before the operation starts.
    public func run<T: Sendable>(_ operation: @escaping @Sendable (Value) async throws -> T) async throws -> T {
        if let finishedError { throw finishedError }
        nextID += 1
        let id = nextID
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                waiters.append(Waiter(
                    id: id,
                    run: { value in
                        do {
                            continuation.resume(returning: try await operation(value))
                        } catch {
                            continuation.resume(throwing: error)
                        }
                    },
                    fail: { continuation.resume(throwing: $0) }
                ))
                startDraining()
            }
        } onCancel: {
            Task { await self.withdraw(id) }
        }
    }

    /// Registers `hook` to run every time the gate opens (and once now, if it is open), before
    /// waiting operations: e.g. "send the profile again after every reconnect".
    @discardableResult
    public func onEveryOpen(_ hook: @escaping @Sendable (Value) async -> Void) -> HookID {
        nextID += 1
        hooks.append(Hook(id: nextID, body: hook, ranForOpening: 0))
        startDraining()
        return HookID(value: nextID)
    }

    /// Stops running the hook `id` on later openings (a run in progress finishes).
    public func removeHook(_ id: HookID) {
        hooks.removeAll { $0.id == id.value }
    }

    private func withdraw(_ id: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).fail(CancellationError())
    }

    private func startDraining() {
        guard value != nil, !draining else { return }
        draining = true
        Task { await drain() }
    }

    /// Runs due hooks, then waiting operations, one at a time while the gate stays open. Each body
    /// runs off the actor, so `close`, `fail` and new submissions are handled while it runs.
    private func drain() async {
        defer { draining = false }
        while let value {
            if let index = hooks.firstIndex(where: { $0.ranForOpening != opening }) {
                hooks[index].ranForOpening = opening
                // Copied out: the array may change while the hook runs off the actor.
                let body = hooks[index].body
                await body(value)
                continue
            }
            guard !waiters.isEmpty else { return }
            await waiters.removeFirst().run(value)
        }
    }
}
