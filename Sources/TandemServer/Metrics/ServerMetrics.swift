/// Every metric `tandem serve` exports at `GET /metrics`, injected into the parts that record them.
///
/// One instance per server (no global registry), so tests can run several servers in one
/// process and assert on each one's numbers. All members are safe to use from any thread.
public final class ServerMetrics: Sendable {
    /// Open WebSocket connections.
    public let connections = Gauge()
    /// Rooms loaded in memory.
    public let rooms = Gauge()
    /// WebSocket messages received.
    public let messagesIn = Counter()
    /// WebSocket messages sent.
    public let messagesOut = Counter()
    /// Payload bytes received.
    public let bytesIn = Counter()
    /// Payload bytes sent.
    public let bytesOut = Counter()
    /// Seconds from a patch's arrival to its durable commit.
    public let commitLatency = Histogram(bounds: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1])
    /// Sessions that resumed by replaying missed patches.
    public let resumes = Counter()
    /// Sessions that received a full state snapshot.
    public let snapshots = Counter()
    /// Rejected patches, by reject code.
    public let rejects = LabeledCounter()
    /// Closed connections, by close code.
    public let closes = LabeledCounter()
    /// Failed invitation accepts, by reason.
    public let inviteFailures = LabeledCounter()
    /// Invitations created.
    public let invitesCreated = Counter()
    /// Invitations accepted (tokens minted).
    public let invitesAccepted = Counter()
    /// Users removed from a room by a host.
    public let participantsRemoved = Counter()
    /// Fresh tokens taken on open connections (`refresh`).
    public let tokenRefreshes = Counter()
    /// Webhook deliveries queued (one per event and endpoint).
    public let webhooksQueued = Counter()
    /// Webhook deliveries an endpoint took (2xx).
    public let webhooksDelivered = Counter()
    /// Failed webhook tries that will be tried again.
    public let webhooksRetried = Counter()
    /// Webhook deliveries given up on (older than the retry window).
    public let webhooksDropped = Counter()
    /// Webhook deliveries waiting (queued, in flight or between retries).
    public let webhooksPending = Gauge()
    /// Seconds from an event to its delivery.
    public let webhookLatency = Histogram(bounds: [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60, 300, 3_600])

    /// Creates a set of metrics, all at zero.
    public init() {}

    /// The metrics in the Prometheus text exposition format (version 0.0.4).
    public func prometheusText() -> String {
        var text = PrometheusText()
        text.gauge("tandem_connections", "Open WebSocket connections.", connections.value)
        text.gauge("tandem_rooms", "Rooms loaded in memory.", rooms.value)
        text.counter("tandem_messages_in_total", "WebSocket messages received.", messagesIn.value)
        text.counter("tandem_messages_out_total", "WebSocket messages sent.", messagesOut.value)
        text.counter("tandem_bytes_in_total", "Payload bytes received.", bytesIn.value)
        text.counter("tandem_bytes_out_total", "Payload bytes sent.", bytesOut.value)
        text.histogram("tandem_patch_commit_seconds", "Seconds from a patch's arrival to its durable commit.", commitLatency)
        text.counter("tandem_resumes_total", "Sessions resumed by replaying missed patches.", resumes.value)
        text.counter("tandem_snapshots_total", "Sessions that received a full state snapshot.", snapshots.value)
        text.labeledCounter("tandem_rejects_total", "Rejected patches by code.", label: "code", rejects)
        text.labeledCounter("tandem_closes_total", "Closed connections by close code.", label: "code", closes)
        text.labeledCounter("tandem_invite_failures_total", "Failed invitation accepts by reason.", label: "reason", inviteFailures)
        text.counter("tandem_invites_created_total", "Invitations created.", invitesCreated.value)
        text.counter("tandem_invites_accepted_total", "Invitations accepted.", invitesAccepted.value)
        text.counter("tandem_participants_removed_total", "Users removed from a room by a host.", participantsRemoved.value)
        text.counter("tandem_token_refreshes_total", "Fresh tokens taken on open connections.", tokenRefreshes.value)
        text.counter("tandem_webhooks_queued_total", "Webhook deliveries queued (one per event and endpoint).", webhooksQueued.value)
        text.counter("tandem_webhooks_delivered_total", "Webhook deliveries an endpoint took.", webhooksDelivered.value)
        text.counter("tandem_webhooks_retried_total", "Failed webhook tries that will be tried again.", webhooksRetried.value)
        text.counter("tandem_webhooks_dropped_total", "Webhook deliveries given up on after the retry window.", webhooksDropped.value)
        text.gauge("tandem_webhooks_pending", "Webhook deliveries waiting.", webhooksPending.value)
        text.histogram("tandem_webhook_delivery_seconds", "Seconds from an event to its delivery.", webhookLatency)
        return text.output
    }
}
