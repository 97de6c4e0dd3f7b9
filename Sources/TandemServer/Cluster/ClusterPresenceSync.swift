import TandemProtocol
import TandemRedis

/// Shares the participants of this node's rooms with the other nodes through TTL'd entries in Redis
/// (`RedisPresence`): every tick it refreshes the entries of its own participants and reads everyone
/// else's, and each room turns the difference into join, presence and leave events for its connections.
///
/// A node that dies stops refreshing, so its participants leave everywhere once their entries lapse
/// (the TTL); a clean leave is removed at once and seen by the others within one tick. Times come
/// from the injected wall clock (the nodes' clocks must agree to well within the TTL). One loop per
/// node; `left` may be called from any thread.
struct ClusterPresenceSync: Sendable {
    /// How often and how long.
    struct Settings: Sendable {
        /// How long an entry lives without a refresh.
        var ttl: Duration = .seconds(15)
        /// How often the node refreshes its entries and reads the others'.
        var interval: Duration = .seconds(1)
    }

    let presence: RedisPresence
    let nodeID: String
    let interval: Duration
    /// Milliseconds since 1970.
    let now: @Sendable () -> Int64
    let clock: any Clock<Duration>

    init(client: RedisClient, nodeID: String, settings: Settings, now: @escaping @Sendable () -> Int64, clock: any Clock<Duration>) {
        presence = RedisPresence(client: client, ttl: settings.ttl)
        self.nodeID = nodeID
        interval = settings.interval
        self.now = now
        self.clock = clock
    }

    /// Ticks until the task is cancelled; `rooms` lists the rooms this node serves at each tick.
    /// A Redis failure skips the room for this tick (entries live for several ticks).
    func run(rooms: @escaping @Sendable () -> [Room]) async {
        while !Task.isCancelled {
            await withTaskGroup(of: Void.self) { tasks in
                for room in rooms() {
                    tasks.addTask { await tick(room) }
                }
            }
            try? await clock.sleep(for: interval)
        }
    }

    /// One room's refresh and read.
    func tick(_ room: Room) async {
        let at = now()
        let local = room.presentParticipants().map { (client: $0.client, data: ServerMessage.join($0).encoded()) }
        do {
            try await presence.refresh(room: room.name, node: nodeID, participants: local, now: at)
            let remote = try await presence.live(room: room.name, now: at).compactMap { entry -> Participant? in
                guard entry.node != nodeID, case .join(let participant)? = try? ServerMessage.decode(entry.data) else { return nil }
                return participant
            }
            room.updateRemoteParticipants(remote)
        } catch {
            // Transient: the entries outlive several ticks.
        }
    }

    /// Removes a participant that left this node cleanly, so the others see it go within one tick.
    func left(room: String, client: String) {
        let presence = presence, nodeID = nodeID
        Task { try? await presence.remove(room: room, node: nodeID, client: client) }
    }
}
