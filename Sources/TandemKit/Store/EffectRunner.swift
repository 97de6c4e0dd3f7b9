import TandemSynchronization

/// Executes effects for a store or a test store: starts their tasks, keeps the registry of
/// running operations by id, and cancels them.
///
/// Thread-safe; the registry is a single `Locked`. A task is registered in the same critical
/// section that creates it, so its removal on completion always finds it (no lost updates).
/// Once `close()` has run, no new operation starts.
@usableFromInline
package final class EffectRunner<Action: Sendable>: Sendable {
    private struct Registry {
        var nextToken: UInt64 = 0
        var running: [UInt64: (id: EffectID?, task: Task<Void, Never>)] = [:]
        var closed = false
    }

    private let registry = Locked(Registry())
    private let didChange: @Sendable () -> Void

    /// Creates a runner; `didChange` is called (outside the lock) whenever an operation finishes.
    @usableFromInline
    package init(didChange: @escaping @Sendable () -> Void = {}) {
        self.didChange = didChange
    }

    /// The number of operations started and neither finished nor cancelled.
    package var runningCount: Int {
        registry.withLock { $0.running.count }
    }

    /// Executes `effect`'s operations in order; `.send` operations call `send` synchronously.
    @usableFromInline
    package func execute(_ effect: Effect<Action>, send: @escaping @Sendable (Action) -> Void) {
        for operation in effect.operations {
            switch operation {
            case .send(let action):
                send(action)
            case .cancel(let id):
                cancel(id: id)
            case .run(let run):
                start(run, send: Send(send))
            }
        }
    }

    /// Cancels every running operation registered under `id`.
    package func cancel(id: EffectID) {
        let cancelled = registry.withLock { registry in Self.remove(id: id, from: &registry) }
        for task in cancelled { task.cancel() }
    }

    /// Cancels every running operation and refuses new ones.
    package func close() {
        cancelAll(closing: true)
    }

    /// Cancels every running operation; new ones may still start.
    package func cancelAll() {
        cancelAll(closing: false)
    }

    private func cancelAll(closing: Bool) {
        let cancelled = registry.withLock { registry in
            if closing { registry.closed = true }
            let tasks = registry.running.values.map(\.task)
            registry.running.removeAll()
            return tasks
        }
        for task in cancelled { task.cancel() }
    }

    private func start(_ run: Effect<Action>.Run, send: Send<Action>) {
        let body = run.body
        let superseded: [Task<Void, Never>] = registry.withLock { registry in
            guard !registry.closed else { return [] }
            var superseded: [Task<Void, Never>] = []
            if let id = run.id, run.cancelInFlight {
                superseded = Self.remove(id: id, from: &registry)
            }
            let token = registry.nextToken
            registry.nextToken &+= 1
            let task = Task(priority: run.priority) { [weak self] in
                await body(send)
                self?.finish(token)
            }
            registry.running[token] = (run.id, task)
            return superseded
        }
        for task in superseded { task.cancel() }
    }

    private func finish(_ token: UInt64) {
        registry.withLock { registry in _ = registry.running.removeValue(forKey: token) }
        didChange()
    }

    private static func remove(id: EffectID, from registry: inout Registry) -> [Task<Void, Never>] {
        let tokens = registry.running.compactMap { $0.value.id == id ? $0.key : nil }
        return tokens.compactMap { registry.running.removeValue(forKey: $0)?.task }
    }
}
