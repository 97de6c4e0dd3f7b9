/// Work a reducer asks the store to do after a state change: send actions, run async operations
/// that feed actions back, or cancel running operations by id.
///
/// An effect is a value: building one does nothing; the store (or a `TestStore`) executes it
/// after the reduction that returned it. Operations run in the order they were combined; an
/// operation started with an id can be cancelled with `Effect.cancel(id:)`, and every running
/// operation is cancelled when its root store is released.
public struct Effect<Action: Sendable>: Sendable {
    /// One step of an effect, as the executor sees it.
    @usableFromInline
    package enum Operation: Sendable {
        /// Dispatch the action after the current one.
        case send(Action)
        /// Start an async operation.
        case run(Run)
        /// Cancel every running operation registered under the id.
        case cancel(EffectID)
    }

    /// An async operation and how it is registered.
    @usableFromInline
    package struct Run: Sendable {
        /// The cancellation id, if any.
        package var id: EffectID?
        /// Whether operations already running under `id` are cancelled before this one starts.
        package var cancelInFlight: Bool
        /// The priority of the task that runs the operation.
        package var priority: TaskPriority?
        /// The work; it sends actions back through its argument.
        package var body: @Sendable (Send<Action>) async -> Void
    }

    /// The steps, executed in order.
    @usableFromInline
    package var operations: [Operation]

    @usableFromInline
    package init(operations: [Operation]) {
        self.operations = operations
    }

    /// No work. Returning `.none` costs nothing: no allocation, no task.
    @inlinable
    public static var none: Effect { Effect(operations: []) }

    /// Dispatches `action` after the action being reduced (and after actions queued before it).
    @inlinable
    public static func send(_ action: Action) -> Effect {
        Effect(operations: [.send(action)])
    }

    /// Runs `operation` in a new task; it reports results by calling its `send` argument.
    ///
    /// - Parameters:
    ///   - id: Registers the operation for `Effect.cancel(id:)`. `nil` means not cancellable by id
    ///     (it is still cancelled when the root store goes away).
    ///   - cancelInFlight: Cancel operations already running under `id` before starting this one.
    ///   - priority: The task's priority.
    ///   - operation: The work. Actions sent after the task is cancelled are dropped.
    public static func run(
        id: (any Hashable & Sendable)? = nil,
        cancelInFlight: Bool = false,
        priority: TaskPriority? = nil,
        operation: @escaping @Sendable (_ send: Send<Action>) async -> Void
    ) -> Effect {
        Effect(operations: [.run(Run(
            id: id.map { EffectID($0) },
            cancelInFlight: cancelInFlight,
            priority: priority,
            body: operation
        ))])
    }

    /// Runs a throwing `operation`; an error other than cancellation is passed to `handler`,
    /// so no failure is silently dropped.
    ///
    /// Cancellation (`CancellationError`, or any error thrown once the task is cancelled) ends
    /// the operation quietly.
    public static func run(
        id: (any Hashable & Sendable)? = nil,
        cancelInFlight: Bool = false,
        priority: TaskPriority? = nil,
        operation: @escaping @Sendable (_ send: Send<Action>) async throws -> Void,
        catch handler: @escaping @Sendable (_ error: any Error, _ send: Send<Action>) async -> Void
    ) -> Effect {
        run(id: id, cancelInFlight: cancelInFlight, priority: priority) { send in
            do {
                try await operation(send)
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                await handler(error, send)
            }
        }
    }

    /// Cancels every operation running under `id`. Their later `send` calls are dropped.
    public static func cancel(id: some Hashable & Sendable) -> Effect {
        Effect(operations: [.cancel(EffectID(id))])
    }

    /// Combines effects; their operations execute in the order given.
    public static func merge(_ effects: Effect...) -> Effect {
        merge(effects)
    }

    /// Combines effects; their operations execute in the order given.
    public static func merge(_ effects: [Effect]) -> Effect {
        Effect(operations: effects.flatMap(\.operations))
    }

    /// Registers every async operation of this effect under `id`, so `Effect.cancel(id:)`
    /// cancels them; with `cancelInFlight`, starting them first cancels those already running.
    public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Effect {
        let effectID = EffectID(id)
        return Effect(operations: operations.map { operation in
            guard case .run(var run) = operation else { return operation }
            run.id = effectID
            run.cancelInFlight = cancelInFlight
            return .run(run)
        })
    }

    /// Transforms the actions this effect produces, e.g. to embed a child feature's effect
    /// into its parent's action type. Cancellation ids are kept.
    public func map<Other: Sendable>(_ transform: @escaping @Sendable (Action) -> Other) -> Effect<Other> {
        Effect<Other>(operations: operations.map { operation in
            switch operation {
            case .send(let action):
                return .send(transform(action))
            case .cancel(let id):
                return .cancel(id)
            case .run(let run):
                let body = run.body
                return .run(Effect<Other>.Run(
                    id: run.id,
                    cancelInFlight: run.cancelInFlight,
                    priority: run.priority
                ) { send in
                    await body(Send { send(transform($0)) })
                })
            }
        })
    }
}
