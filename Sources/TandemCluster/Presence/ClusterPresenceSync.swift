import TandemProtocol
import TandemRedis
import TandemServer

/// Shares the participants of this node's rooms with the other nodes through TTL'd entries in Redis
/// (`RedisPresence`): every tick it reads everyone else's entries, and each room turns the difference
/// into join, presence and leave events for its connections; it writes its own entries when they
/// changed, and otherwise every third of the TTL, so that quiet rooms cost one read per tick.
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

    /// What a room's entries were last written with, and when (milliseconds since 1970).
    struct Refreshed: Equatable {
        var participants: [String: [UInt8]]
        var at: Int64
    }

    let presence: RedisPresence
    let nodeID: String
    let interval: Duration
    let refreshEvery: Int64
    /// Milliseconds since 1970.
    let now: @Sendable () -> Int64
    let clock: any Clock<Duration>

    init(client: any RedisCommandSending, nodeID: String, settings: Settings, now: @escaping @Sendable () -> Int64, clock: any Clock<Duration>) {
        presence = RedisPresence(client: client, ttl: settings.ttl)
        self.nodeID = nodeID
        interval = settings.interval
        refreshEvery = settings.ttl.totalMilliseconds / 3
        self.now = now
        self.clock = clock
    }

    /// Ticks until the task is cancelled; `rooms` lists the rooms this node serves at each tick.
    /// A Redis failure skips the room for this tick (entries live for several ticks).
    func run(rooms: @escaping @Sendable () -> [any ReplicatedRoom]) async {
        var refreshed: [String: Refreshed] = [:]
        while !Task.isCancelled {
            let current = rooms()
            let last = refreshed
            refreshed = await withTaskGroup(of: (String, Refreshed?).self) { tasks in
                for room in current {
                    tasks.addTask { (room.name, await tick(room, last: last[room.name])) }
                }
                var next: [String: Refreshed] = [:]
                for await (name, written) in tasks { next[name] = written }
                return next
            }
            try? await clock.sleep(for: interval)
        }
    }

    /// One room's refresh (when due) and read; returns what its entries now hold.
    func tick(_ room: any ReplicatedRoom, last: Refreshed?) async -> Refreshed? {
        let at = now()
        let participants = Dictionary(room.presentParticipants().map { (PresenceEntry.key(of: $0.peer), ServerMessage.join($0).encoded()) }) { first, _ in first }
        var written = last
        do {
            if Self.mustWrite(participants, at: at, last: last, every: refreshEvery) {
                try await presence.refresh(room: room.name, node: nodeID, participants: participants.map { ($0.key, $0.value) }, now: at)
                written = Refreshed(participants: participants, at: at)
            }
            let remote = try await presence.live(room: room.name, now: at).compactMap { entry -> Participant? in
                guard entry.node != nodeID, case .join(let participant)? = try? ServerMessage.decode(entry.data) else { return nil }
                return participant
            }
            room.updateRemoteParticipants(remote)
        } catch {
            // Transient: the entries outlive several ticks.
        }
        return written
    }

    /// Whether a room's entries must be written: its participants changed (someone joined or changed
    /// presence data), or the last write is a third of the TTL old.
    static func mustWrite(_ participants: [String: [UInt8]], at: Int64, last: Refreshed?, every: Int64) -> Bool {
        guard let last else { return true }
        return participants != last.participants || at - last.at >= every
    }

    /// Removes a participant that left this node cleanly, so the others see it go within one tick.
    func left(room: String, peer: Peer) {
        let presence = presence, nodeID = nodeID
        Task { try? await presence.remove(room: room, node: nodeID, key: PresenceEntry.key(of: peer)) }
    }
}
