/// Where a `SyncSession` keeps its `SyncSavedState` so that pending changes survive the app.
///
/// The session reads `saved` once, when it is created, and calls `save` with the newest state after
/// changes (coalesced: at most one write per `SyncSessionConfiguration.persistenceInterval`, one at a
/// time, the newest state last) and on `flush()`, `suspend()` and `stop()`. A failed save is reported
/// as `SyncSessionEvent.persistenceFailed` and retried with the next change; the session keeps working
/// in memory.
public protocol SyncPersistence: Sendable {
    /// The state saved last, or nil for a fresh store.
    var saved: SyncSavedState? { get }

    /// Replaces the saved state. Either the whole new state is kept or the old one stays: a crash
    /// during a save never leaves a torn or half-applied state.
    func save(_ state: SyncSavedState) async throws(SyncPersistenceError)

    /// Lets go of the store once the session has stopped (after its last save), so another session may
    /// open it at once. The session calls it at the end of `stop()`.
    func close() async
}

extension SyncPersistence {
    /// A store that holds nothing open has nothing to let go of.
    public func close() async {}
}
