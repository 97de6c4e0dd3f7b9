import TandemKit
import TandemProtocol

/// Binds a slice of an app's TandemKit store to the shared state: local changes of the slice
/// become patch ops for the sync engine; remote changes arrive as one action that replaces the
/// slice. Both end in the store's state, so the app renders from one entry point.
///
/// The pure part of the binding: the networked session passes `outbox` (its `localChange`) and
/// sends `remoteAction(for:)` into the store after the engine reports `.visibleChanged`.
public struct SyncBinding<State: Sendable, Action: Sendable, Value: Codable & Equatable & Sendable>: Sendable {
    /// The typed mapping of the slice to the document.
    public let shared: SharedState<Value>
    private let slice: any WritableKeyPath<State, Value> & Sendable
    private let embed: @Sendable (Value) -> Action
    private let extract: @Sendable (Action) -> Value?
    private let outbox: @Sendable ([PatchOp]) -> Void
    private let onError: @Sendable (SharedStateError) -> Void

    /// Creates a binding.
    /// - Parameters:
    ///   - slice: where the shared value lives in the app state.
    ///   - shared: the typed mapping (defaults for missing fields).
    ///   - remote: builds the action that carries a remote value (say `.remoteChanged(PageState)`).
    ///   - extract: recognizes that action (it must not be echoed back as a local change).
    ///   - outbox: receives the ops of every local change of the slice, in reduce order.
    ///   - onError: hears a remote state the slice's type cannot read (remote updates then stop reaching the
    ///     store until it can) and a local change that cannot be encoded (it is not shared).
    public init(
        slice: any WritableKeyPath<State, Value> & Sendable, shared: SharedState<Value>,
        remote: @escaping @Sendable (Value) -> Action, extract: @escaping @Sendable (Action) -> Value?,
        outbox: @escaping @Sendable ([PatchOp]) -> Void, onError: @escaping @Sendable (SharedStateError) -> Void = { _ in }
    ) {
        self.slice = slice
        self.shared = shared
        embed = remote
        self.extract = extract
        self.outbox = outbox
        self.onError = onError
    }

    /// The action to send into the store for a new visible document, `nil` when the slice already
    /// holds that value (no needless render) or the document cannot be read as `Value` (reported to
    /// `onError`).
    public func remoteAction(for document: Document, current state: State) -> Action? {
        let value: Value
        do {
            value = try shared.value(in: document)
        } catch {
            onError(error)
            return nil
        }
        guard value != state[keyPath: slice] else { return nil }
        return embed(value)
    }

    /// The ops a reduce produced: none for the remote action itself, else the slice's diff (none, and
    /// `onError` told, when the new value cannot be encoded).
    public func localOps(action: Action, old: State, new: State) -> [PatchOp] {
        guard extract(action) == nil else { return [] }
        let before = old[keyPath: slice], after = new[keyPath: slice]
        guard before != after else { return [] }
        do {
            return try shared.changes(from: before, to: after)
        } catch {
            onError(error)
            return []
        }
    }

    /// Wraps `reducer`: the remote action replaces the slice; any other action runs `reducer`, and
    /// a change of the slice goes to `outbox`.
    public func reducer(_ reducer: @escaping Store<State, Action>.Reducer) -> Store<State, Action>.Reducer {
        let binding = self
        return { state, action in
            if let value = binding.extract(action) {
                state[keyPath: binding.slice] = value
                return .none
            }
            let old = state
            let effect = reducer(&state, action)
            let ops = binding.localOps(action: action, old: old, new: state)
            if !ops.isEmpty { binding.outbox(ops) }
            return effect
        }
    }

    /// The same as a middleware, for stores whose reducer cannot be wrapped: after each reduce a
    /// change of the slice goes to `outbox` (the app's reducer handles the remote action itself).
    public func middleware() -> Middleware<State, Action> {
        let binding = self
        return Middleware(didReduce: { action, old, new in
            let ops = binding.localOps(action: action, old: old, new: new)
            if !ops.isEmpty { binding.outbox(ops) }
            return .none
        })
    }
}
