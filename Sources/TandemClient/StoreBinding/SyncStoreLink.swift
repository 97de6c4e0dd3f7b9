import TandemSynchronization
import TandemKit
import TandemProtocol

/// Connects a TandemKit store, bound with a `SyncBinding`, to a live `SyncSession`: the slice's local
/// changes go to the session as patches, and the session's visible state comes back into the store as
/// the binding's remote action — one render entry point for both, as the store architecture wants.
///
/// Ordering: local changes reach the session in the order the store reduced them. While a local change
/// is on its way to the session, remote snapshots (which cannot contain it yet, and would pull the slice
/// back to an older value for a moment) are held back; the newest is applied once the session has the
/// change. Thread-safe; `submit` may be called from the store's reducer.
public final class SyncStoreLink: Sendable {
    /// The session the store is linked to.
    public let session: SyncSession
    private let queue: AsyncStream<[PatchOp]>
    private let continuation: AsyncStream<[PatchOp]>.Continuation
    /// Local changes submitted and not yet applied to the session.
    private let inFlight = AtomicValue<Int>(0)
    /// `settled` callers waiting for `inFlight` to reach 0.
    private let handedOverWaiters = Locked<[CheckedContinuation<Void, Never>]>([])

    /// Creates a link; pass `submit` as the binding's `outbox`, then call `run`.
    public init(session: SyncSession) {
        self.session = session
        (queue, continuation) = AsyncStream<[PatchOp]>.makeStream()
    }

    /// Queues the ops of one local change for the session (the binding's `outbox`). Never blocks.
    public func submit(_ ops: [PatchOp]) {
        guard !ops.isEmpty else { return }
        inFlight.add(1, ordering: .sequentiallyConsistent)
        if case .terminated = continuation.yield(ops) {
            inFlight.subtract(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Runs the link until the session ends or the calling task is cancelled: applies local changes to the
    /// session in order, and sends the binding's remote action into `store` whenever the session's visible
    /// state differs from the slice. `onError` hears local changes the session refused (e.g. a viewer's,
    /// or one the visible state cannot take); the session's own rollback then reaches the store as a
    /// remote action.
    public func run<State: Sendable, Action: Sendable, Value: Codable & Equatable & Sendable>(
        store: Store<State, Action>, binding: SyncBinding<State, Action, Value>,
        onError: @escaping @Sendable (SyncSessionError) -> Void = { _ in }
    ) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await ops in self.queue {
                    do throws(SyncSessionError) {
                        try await self.session.apply(ops)
                    } catch {
                        onError(error)
                    }
                    if self.inFlight.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 {
                        // Snapshots held back meanwhile: the newest state now includes every local change.
                        self.render(await self.session.snapshot, into: store, binding: binding)
                        self.wakeHandedOverWaiters()
                    }
                }
            }
            group.addTask {
                for await snapshot in await self.session.snapshots() {
                    self.render(snapshot, into: store, binding: binding)
                }
                // The session ended: nothing more can be applied.
                self.continuation.finish()
            }
            await group.waitForAll()
        }
    }

    /// Waits until every change submitted so far is with the session, confirmed by the server and saved
    /// (with persistence): the store's "all changes saved". Returns false when `timeout` passed first or the
    /// session ended with changes unconfirmed. (`session.drain` alone can return before the link handed the
    /// store's last change over.)
    public func settled(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while inFlight.load(ordering: .sequentiallyConsistent) > 0, ContinuousClock.now < deadline {
            let alarm = Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                self.wakeHandedOverWaiters()
            }
            await withCheckedContinuation { continuation in
                let ready = handedOverWaiters.withLock { waiters in
                    guard self.inFlight.load(ordering: .sequentiallyConsistent) > 0 else { return true }
                    waiters.append(continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
            alarm.cancel()
        }
        guard inFlight.load(ordering: .sequentiallyConsistent) == 0 else { return false }
        let confirmed = await session.drain(timeout: max(.zero, deadline - ContinuousClock.now))
        await session.flush()
        return confirmed
    }

    private func wakeHandedOverWaiters() {
        let waiters = handedOverWaiters.withLock { waiters in
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func render<State: Sendable, Action: Sendable, Value: Codable & Equatable & Sendable>(
        _ snapshot: SyncSnapshot, into store: Store<State, Action>, binding: SyncBinding<State, Action, Value>
    ) {
        // A snapshot taken before a submitted change reached the session would undo it in the store.
        guard inFlight.load(ordering: .sequentiallyConsistent) == 0 else { return }
        if let action = binding.remoteAction(for: Document(snapshot.state) ?? Document(), current: store.state) {
            store.send(action)
        }
    }
}
