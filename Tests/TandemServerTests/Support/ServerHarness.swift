import Synchronization
import TandemTesting
import Testing
import TandemProtocol
@testable import TandemServer

/// A server's protocol logic wired in process, without sockets: sessions talk to rooms through
/// the real registry, commit queue and storage; time is a manual scheduler.
final class ServerHarness: Sendable {
    let configuration: ServerConfiguration
    let metrics = ServerMetrics()
    let scheduler = ManualTimerScheduler()
    let commits: CommitQueue
    let registry: RoomRegistry
    let verifier: TokenVerifier
    private let nextID = Atomic<UInt64>(0)
    let monotonic = ManualNumber(0)
    /// Unix seconds as the token verifier sees them.
    let wallClock = ManualNumber(1_800_000_000)

    /// Users removed by a host, consulted by the rooms.
    let denials = DenyList([])
    /// What the sessions log.
    let logger: Logger
    /// Who may do what, as the server decides it.
    let access: RoomAccess
    /// The per-user write allowance every session of this harness shares.
    let writes: WriteAllowance

    /// - Parameters:
    ///   - sequencing: who sequences the rooms (this server alone when nil).
    ///   - logger: what the sessions log to.
    init(configuration: ServerConfiguration = ServerConfiguration(), store: any RoomStore = InMemoryRoomStore(),
         sequencing: ((CommitQueue, RoomSettings) -> any SequencingService)? = nil, logger: Logger = .discarding) {
        self.configuration = configuration
        self.logger = logger
        commits = CommitQueue(store: store)
        let denials = denials, wallClock = wallClock
        let access = RoomAccess(removals: denials, now: { wallClock.value })
        self.access = access
        writes = WriteAllowance(rate: Double(configuration.rateLimit), burst: Double(configuration.rateBurst))
        let settings = RoomSettings(configuration)
        let service = sequencing?(commits, settings) ?? LocalSequencing(commits: commits, settings: settings, logger: .discarding)
        registry = RoomRegistry(sequencing: service, scheduler: scheduler, settings: settings, metrics: metrics, logger: .discarding,
                                isDenied: { room, user in access.isRemoved(user, from: room) })
        let clock = wallClock
        verifier = TokenVerifier(secret: Array("test-secret".utf8), hmac: FakeHMAC.mac, now: { clock.value })
    }

    deinit { commits.shutdown() }

    /// Advances the rate limiter's clock.
    func advanceMonotonic(by nanoseconds: Int64) { monotonic.add(nanoseconds) }

    func token(user: String, room: String = "lobby", role: Role = .host, name: String? = nil, ttl: Int64 = 3600) -> String {
        verifier.mint(TokenClaims(sub: user, room: room, role: role, exp: wallClock.value + ttl, name: name))
    }

    /// A new connection's session and what it receives.
    func connect() -> (ServerSession, RecordingSink) {
        let sink = RecordingSink()
        let id = ConnectionID(nextID.add(1, ordering: .relaxed).newValue)
        let monotonic = self.monotonic
        let context = ServerSession.Context(registry: registry, verifier: verifier, access: access, writes: writes, scheduler: scheduler, configuration: configuration,
                                            metrics: metrics, logger: logger, monotonicNow: { monotonic.value },
                                            wallClock: { [wallClock] in wallClock.value * 1_000 })
        return (ServerSession(id: id, sink: sink, context: context), sink)
    }

    /// Connects, says hello and returns the welcome.
    func join(user: String, client: String, room: String = "lobby", role: Role = .host, resume: ResumePoint? = nil,
              presence: JSONValue? = nil) async -> (ServerSession, RecordingSink, Welcome?) {
        let (session, sink) = connect()
        session.send(.hello(Hello(token: token(user: user, room: room, role: role), client: client, resume: resume, presence: presence)))
        guard case .welcome(let welcome)? = await sink.nextMessage() else { return (session, sink, nil) }
        return (session, sink, welcome)
    }
}

/// A number shared between a test and the code under test (a hand-driven clock).
final class ManualNumber: Sendable {
    private let storage: Atomic<Int64>
    init(_ value: Int64) { storage = Atomic(value) }
    var value: Int64 { storage.load(ordering: .relaxed) }
    func add(_ amount: Int64) { storage.add(amount, ordering: .relaxed) }
}

extension ServerSession {
    /// Sends a client message as the encoded text a connection would deliver.
    func send(_ message: ClientMessage) { receive(message.encoded()) }
}

/// A keyed 32-byte mixing function standing in for HMAC-SHA256 in protocol tests (the real
/// HMAC is tested with its vectors where it lives). Not cryptographic.
enum FakeHMAC {
    @Sendable static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var state: [UInt64] = [0xcbf2_9ce4_8422_2325, 0x100_0000_01b3, 0x9E37_79B9_7F4A_7C15, 0xBF58_476D_1CE4_E5B9]
        for (index, byte) in (key + [0] + message).enumerated() {
            let lane = index % 4
            state[lane] = (state[lane] ^ UInt64(byte)) &* 0x100_0000_01b3
            state[(lane + 1) % 4] ^= state[lane] >> 29
        }
        return state.flatMap { value in (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    }
}
