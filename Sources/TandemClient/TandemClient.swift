import TandemKit
import TandemProtocol
import TandemWire

/// TandemClient: the library an app links to share its page state through a Tandem server.
///
/// The deterministic core the networked session drives: `SyncEngine` (confirmed and visible
/// document, outbox, flow control), `ConnectionLifecycle` with `ReconnectPolicy`,
/// `HeartbeatMonitor`, `SharedState` (typed access), `PrimaryScrollFilter` and `SyncBinding`
/// (a TandemKit store slice bound to the shared state). `SyncSession` is the networked driver: it
/// connects, resumes, paces, heartbeats and reconnects, and reports `states` and `events`.
public enum TandemClient {
    /// The protocol subprotocol this client speaks.
    public static let subprotocol = TandemProtocol.subprotocol
}
