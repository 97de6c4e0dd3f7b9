import TandemProtocol
import TandemWire

/// What rooms and the invitation routes tell webhooks: facts, as they happen. Calls never wait (an
/// append under a lock), so rooms make them under their own lock, in the order things happened; which
/// events follow (a session starting, one `state.changed` per window) is the reporter's to decide.
package protocol WebhookReporter: Sendable {
    /// A participant was admitted; `first` when nobody else was in the room as this server sees it.
    func joined(room: String, _ participant: Participant, first: Bool)
    /// A participant left; `last` when nobody is in the room any more as this server sees it.
    func left(room: String, _ participant: Participant, last: Bool)
    /// A patch was applied at `rev` with `ops`; `authoredHere` when its author is connected to this
    /// server or it came through this server's rooms API (in a cluster, every node applies every patch).
    func changed(room: String, rev: Int64, ops: [PatchOp], authoredHere: Bool)
    /// A host removed `user` from the room.
    func removed(room: String, user: String, by host: String)
    /// An invitation to the room was accepted by `user` with `role`.
    func inviteAccepted(room: String, user: String, role: Role, name: String?)
}

/// Webhooks as a server runs them: the reporter its rooms call, and when delivering starts and stops.
package protocol WebhookService: Sendable {
    /// What rooms and routes report to.
    var reporter: any WebhookReporter { get }
    /// Starts delivering (once the server listens: a server that fails to start delivers nothing).
    func start() async
    /// At shutdown, after the rooms reported who left: sends what is pending in reports, gives
    /// deliveries up to `grace` to go out, and stops; what is left waits in the queue.
    func stop(grace: Duration) async
}

/// What any kind of webhook service is built from.
package struct WebhookSetup: Sendable {
    /// Endpoints, secret, retries, timeout.
    package var settings: WebhookDispatcher.Settings
    package var transport: any WebhookTransport
    /// At most one `state.changed` per room per this long.
    package var debounce: Duration
    /// Unix ms: event times, due times.
    package var wallClock: @Sendable () -> Int64
    package var random: any RandomByteSource
    package var metrics: ServerMetrics
    package var logger: Logger

    package init(settings: WebhookDispatcher.Settings, transport: any WebhookTransport, debounce: Duration, wallClock: @escaping @Sendable () -> Int64,
                 random: any RandomByteSource, metrics: ServerMetrics, logger: Logger) {
        self.settings = settings
        self.transport = transport
        self.debounce = debounce
        self.wallClock = wallClock
        self.random = random
        self.metrics = metrics
        self.logger = logger
    }
}

/// The webhooks of a server that runs alone: an emitter deciding the events, a dispatcher delivering
/// them from the server's own queue.
struct LocalWebhooks: WebhookService {
    let emitter: WebhookEmitter
    let dispatcher: WebhookDispatcher

    var reporter: any WebhookReporter { emitter }

    func start() async {
        await dispatcher.start()
    }

    func stop(grace: Duration) async {
        await emitter.close()
        await dispatcher.drain(within: grace)
        await dispatcher.shutdown()
    }
}
