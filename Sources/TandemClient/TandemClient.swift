// The types an app uses with the client — JSON values, patch ops and pointers, participants, roles,
// TLS settings, and the store it may bind — come with `import TandemClient`.
@_exported import TandemKit
@_exported import TandemProtocol
@_exported import TandemWireCore

/// TandemClient: the library an app links to share its page state through a Tandem server.
///
/// `SharedRoom` is the observable model for a view layer (typed state, status, participants);
/// `SyncSession` is the networked driver under it: it connects over a `SyncTransport`, resumes,
/// paces, heartbeats, reconnects, keeps pending changes in a `SyncPersistence`, and reports `states`
/// and `events`. The deterministic core it drives: `SyncEngine` (confirmed and visible document,
/// outbox, flow control), `ConnectionLifecycle` with `ReconnectPolicy`, `HeartbeatMonitor`,
/// `SharedState` (typed access), `PrimaryScrollFilter` and `SyncBinding` (a TandemKit store slice
/// bound to the shared state, linked to a session by `SyncStoreLink`).
public enum TandemClient {
    /// The protocol subprotocol this client speaks.
    public static let subprotocol = TandemProtocol.subprotocol
}
