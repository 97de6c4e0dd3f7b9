import TandemWire

import TandemProtocol

/// Every tunable of `tandem serve`, with the defaults of the product specification.
///
/// A value type: build one, adjust what you need, hand it to the server. Every duration is a
/// `Duration`; what is announced to clients (the heartbeat) goes out in whole milliseconds, and
/// `tandem serve` takes each in the unit its option names.
public struct ServerConfiguration: Sendable, Equatable {
    /// Address to listen on.
    public var host = "127.0.0.1"
    /// TCP port; 0 picks a free port (tests).
    public var port = TandemServer.defaultPort
    /// Folder for storage and the secret file.
    public var dataDirectory = "./tandem-data"
    /// Largest WebSocket message accepted, in bytes (larger closes with 1009).
    public var maxMessageBytes = WebSocketFrameDecoder.defaultMaxMessageSize
    /// Largest room document after a patch, in bytes of compact JSON (larger is rejected `too_large`).
    public var maxDocumentBytes = PatchLimits().maxDocument
    /// Deepest nesting of a room document, presence and signal data (deeper is rejected `too_deep`); at
    /// most `PatchLimits.deepestAllowed`, so that every message carrying such a value stays readable.
    public var maxDepth = PatchLimits.defaultMaxDepth
    /// Most ops in one patch (more is rejected `too_many_ops`).
    public var maxOpsPerPatch = PatchLimits().maxOps
    /// Messages per second per connection (token bucket refill); 0 turns rate limiting off.
    public var rateLimit = Int(SessionLimits().rate)
    /// Token bucket size: messages a connection may send in a burst.
    public var rateBurst = SessionLimits().burst
    /// Heartbeat interval announced to clients (in whole milliseconds).
    public var heartbeatInterval: Duration = .seconds(10)
    /// A connection that sends nothing for this long is closed with 4000.
    public var idleTimeout: Duration = .seconds(30)
    /// A connection that sends no `hello` this long after the upgrade is closed with 4008.
    public var helloTimeout: Duration = .seconds(5)
    /// An HTTP request or upgrade not complete after this long is dropped (slow clients).
    public var handshakeTimeout: Duration = .seconds(10)
    /// How long a dropped participant stays present, so a quick reconnect makes no leave/join.
    public var presenceGrace: Duration = .seconds(5)
    /// Revisions kept per room for resume; older resumes get a snapshot.
    public var historyWindow = 10_000
    /// Revisions of history each room keeps in storage (at least `historyWindow`): the rooms API reads
    /// its history and rebuilds its states from them.
    public var retainedRevisions = 100_000
    /// How old history each room keeps in storage may get beyond the resume window (older patches go when
    /// the room next stores a snapshot; whole milliseconds count); nil keeps history by `retainedRevisions` only.
    public var retainedAge: Duration?
    /// A room's document is stored whole every this many revisions (the patches between are replayed
    /// onto it at a load, and by `state?rev=` of the rooms API).
    public var snapshotInterval = 1_000
    /// Client ids whose last applied seq a room remembers (exactly-once); beyond it the least recently
    /// seen are forgotten (see docs/PROTOCOL.md, "Exactly once per client id").
    public var maxTrackedClientsPerRoom = 10_000
    /// A room forgets a client id's last applied seq once it has not heard from it for this long (30 days).
    public var clientProgressTTL: Duration = .seconds(30 * 86_400)
    /// Most participants (connections) in one room; more close with 4013.
    public var maxParticipantsPerRoom = 100
    /// Most connections (each with its own client id) one user may have in one room on a node; beyond, a join
    /// is closed with 4013 — one token cannot fill a room.
    public var maxConnectionsPerUser = 5
    /// Bytes queued for one connection beyond which it is closed with 4002 as a slow consumer.
    public var sendQueueLimitBytes = WebSocketServerConfiguration().sendQueueLimit
    /// Most open connections for the whole server.
    public var maxConnections = WebSocketServerConfiguration().maxConnections
    /// Browser origins allowed to open WebSockets; empty allows any origin.
    public var allowedOrigins: [String] = []
    /// Keep room documents only in memory (benchmarks of what durability costs); acks then mean
    /// "applied", not "durable".
    public var inMemoryStorage = false
    /// Lifetime of the tokens minted when an invitation is accepted (whole seconds count: a token's `exp` is in seconds).
    public var inviteTokenTTL: Duration = .seconds(3_600)
    /// What every token must also satisfy: an issuer, an audience, a longest lifetime (none by default).
    public var tokenRequirements = TokenRequirements()
    /// Longest invitation lifetime a host may ask for (whole seconds count).
    public var inviteMaxTTL: Duration = .seconds(7 * 86_400)
    /// Most uses a host may give one invitation.
    public var inviteMaxUses = 1000
    /// Most live invitations per room.
    public var inviteMaxLivePerRoom = 100
    /// How long an invitation is remembered past its expiry, seconds. A code used up or revoked before then
    /// answers 410; one past its expiry is forgotten at once by default, so dead codes never crowd the code
    /// space. Whole seconds count.
    public var inviteRetention: Duration = .zero
    /// Digits of the invitation codes made (`InvitationCode.lengths`); each digit more makes guessing ten times
    /// harder. Codes of every length are accepted, so a change keeps the codes already handed out.
    public var inviteCodeLength = InvitationCode.defaultLength
    /// Invitations one host may create per minute in a room, and all hosts of a room together (429 beyond).
    public var inviteCreationsPerMinute = 30
    /// Failed invitation accepts one address may make per minute before it gets 429.
    public var failedAcceptsPerAddress = 10
    /// Failed invitation accepts all addresses together may make per minute before every accept gets 429.
    public var failedAcceptsGlobal = 100
    /// The base URL guests open (e.g. `https://cobrowse.example.com`); invitation URLs are `<base>/#invite=CODE`,
    /// which open the browser page. An origin only: the page is served at `/` and loads everything from the root.
    /// Nil uses the address the server listens on (`https://` when the port speaks TLS), never a request's `Host`.
    public var publicURL: String?
    /// Cluster mode: the Redis that several nodes share (`redis://HOST:PORT`). Nil runs a single node with
    /// its own storage. See docs/CLUSTER.md.
    public var redisURL: String?
    /// Cluster mode: `redisURL` names seed nodes of a Redis Cluster (sharded; several may be given,
    /// separated by commas): each room's keys live on the shard of its slot. See docs/CLUSTER.md.
    public var redisCluster = false
    /// This node's name in the cluster (logs, presence); nil makes a random one at start.
    public var nodeID: String?
    /// Cluster mode: how long a node's presence entries live without a refresh, i.e. how long after a
    /// node died its participants still appear on the other nodes.
    public var clusterPresenceTTL: Duration = .seconds(15)
    /// Cluster mode: how often a node refreshes its presence entries and reads the other nodes'
    /// (the delay before a join, leave or presence change is seen across nodes).
    public var clusterPresenceInterval: Duration = .seconds(1)
    /// Cluster mode: the least time between two of a node's calls that append patches to Redis. The rooms' patches that come meanwhile go together in the next call, so a node
    /// makes at most one call per interval (at most four at Redis at once) whatever its load, and a
    /// patch waits at most this long before it leaves; a patch that comes after a quiet interval goes
    /// at once. Zero sends a call as soon as one of the four is free. See docs/CLUSTER.md.
    public var clusterCommitInterval: Duration = .milliseconds(5)

    /// Webhooks: the endpoints every event is POSTed to (`http://` or `https://`); empty sends none.
    /// See docs/OPERATIONS.md.
    public var webhookURLs: [String] = []
    /// Webhooks: the key of `Tandem-Signature`; nil uses the file `webhook-secret` in the data folder
    /// (created on first start like `secret`).
    public var webhookSecret: String?
    /// Webhooks: at most one `state.changed` per room per this long.
    public var webhookDebounce: Duration = .seconds(1)
    /// Webhooks: the bound of the first retry's wait; later waits double up to 10 minutes.
    public var webhookRetryBase: Duration = .seconds(1)
    /// Webhooks: how long an event is tried before it is dropped and counted.
    public var webhookRetryPeriod: Duration = .seconds(24 * 3_600)
    /// Webhooks: a PEM CA certificate `https://` endpoints may also chain to (a private CA), besides the
    /// system's trust store.
    public var webhookCAFile: String?
    /// Webhooks: how long one try may take, connecting included.
    public var webhookTimeout: Duration = .seconds(5)

    /// TLS: the PEM certificate chain (leaf first) served for `wss://` and `https://` on the same port, with
    /// `tlsKeyPath`. Nil (both) serves plain text; one without the other does not start.
    public var tlsCertificatePath: String?
    /// TLS: the PEM private key of `tlsCertificatePath`.
    public var tlsKeyPath: String?

    /// TLS: every HTTPS response (page, API, `/healthz`, errors) carries `Strict-Transport-Security: max-age=` this
    /// long (in whole seconds), so browsers that saw it use only `https://` and `wss://` for the host that long.
    /// Nil sends none; without TLS the server does not start (browsers ignore the header over plain HTTP).
    public var hstsMaxAge: Duration?

    /// Whether the port speaks TLS.
    public var servesTLS: Bool { tlsCertificatePath != nil }

    /// Event-loop threads; nil picks `defaultEventLoopThreads(cores:durableStorage:)` for this machine.
    public var eventLoopThreads: Int?

    /// Whether patches are committed to this server's own durable storage (the journal and SQLite; not in memory, not in Redis).
    public var storesDurably: Bool { !inMemoryStorage && redisURL == nil }

    /// The configuration without any option set: where the defaults of the parts built from a configuration
    /// (a room's settings, the command line's help) come from.
    package static let standard = ServerConfiguration()

    /// The default number of event-loop threads on a machine with `cores` cores: one per core, less one
    /// when rooms are stored durably, which leaves a core to the journal's materializer and the WAL
    /// checkpointer. Measured on 2 cores shared with the load generator (docs/bench/relays-profile.md):
    /// one loop answered sooner at a fixed rate (p50 0.20–0.22 against 0.27–0.49 ms), two delivered more
    /// at peak (≈ 15 % more); `--loops` picks either.
    public static func defaultEventLoopThreads(cores: Int, durableStorage: Bool) -> Int {
        max(1, durableStorage ? cores - 1 : cores)
    }

    /// Whether `threads` event loops on `cores` cores poll longer between events while busy
    /// (`EventLoopGroup(pollsLongerWhenBusy:)`): only when they leave a core free, so that their polling never
    /// takes the core another thread of the machine is waiting for. True for the durable default.
    public static func loopsPollLongerWhenBusy(threads: Int, cores: Int) -> Bool {
        threads < cores
    }

    /// The defaults of the product specification.
    public init() {}
}
