import TandemProtocol
import TandemRedis
import TandemWire

/// Follows the logs of a node's rooms through their change channels: one subscriber connection
/// (sharded Pub/Sub) per Redis server holding followed rooms hears every batch the rooms' scripts
/// append, with its entries, so a poll costs Redis nothing per followed room, and idle rooms cost
/// nothing at all.
///
/// Pub/Sub may miss messages (before a subscription is confirmed, while the connection is down, a
/// message that does not continue the room's rev), so the log stays the truth: a room is read from its
/// log (`XRANGE` after its rev, with its epoch) once its subscription is confirmed, after every
/// reconnect, and whenever a message leaves a gap. Data loss without a restart (`FLUSHALL`) is caught by
/// one marker key per server read every `epochCheckInterval`, not by reading every room. On a Redis
/// Cluster, a room whose slot moves (its subscriber closed by `MOVED`, or told `sunsubscribe`) is
/// routed again and read from its log.
///
/// Guarantees: for each room, `.patches` events are contiguous in rev order, from one epoch, starting
/// right after the rev the room was followed from; anything that breaks that (an epoch change, a gap
/// after the log was trimmed) becomes one `.reset` and the room is dropped. A value with one owner:
/// the node's follow loop. The sequencer's client is used for the reads (the follower's own, so that
/// they never wait behind the node's appends).
struct RoomLogFollower: Sendable {
    private struct Cursor: Sendable, Equatable {
        var epoch: String
        var rev: Int64
        /// The server whose subscriber connection carries the room's channel (nil: to be routed).
        var node: RedisEndpoint?
        /// SSUBSCRIBE sent on the node's current connection.
        var requested = false
        /// The number of the connection the SSUBSCRIBE went on: only its pushes count for the room.
        var connection = 0
        /// Redis confirmed the subscription: its messages can be trusted to arrive.
        var subscribed = false
        /// The log must be read (after the confirmation) before messages continue the room.
        var needsRead = true
    }

    /// Reads through this sequencer's client.
    let sequencer: RedisRoomSequencer
    /// How long one poll waits for news before returning (at least 1 ms).
    var blockTimeout: Duration
    /// The most entries one read of a room's log returns.
    var batchSize: Int
    /// How often the data-loss marker is read (zero: at every poll).
    var epochCheckInterval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let inbox: RoomChangeInbox
    /// One subscriber connection per server, with the number its pushes carry.
    private var subscribers: [RedisEndpoint: (subscriber: RedisSubscriber, connection: Int)] = [:]
    private var connections = 0
    private var cursors: [String: Cursor] = [:]
    private var roomByChannel: [String: String] = [:]
    /// Channels to unsubscribe, with the server that carries them.
    private var leaving: [String: RedisEndpoint] = [:]
    /// A subscription moved: the cluster's layout is read again before rooms are routed.
    private var routingStale = false
    /// Servers whose subscriber could not be opened: when to try again, and the wait that led there
    /// (doubling up to a second), so that a server that is down does not hold up every poll.
    private var retries: [RedisEndpoint: (at: ContinuousClock.Instant, wait: Duration)] = [:]
    private var lastMarkerCheck: ContinuousClock.Instant?
    private var markers: [String: String] = [:]

    /// A follower with no rooms yet.
    /// - Parameter now: the clock `epochCheckInterval` is measured on.
    init(sequencer: RedisRoomSequencer, blockTimeout: Duration = .seconds(1), batchSize: Int = 1_000,
         epochCheckInterval: Duration = .zero, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.sequencer = sequencer
        self.blockTimeout = blockTimeout
        self.batchSize = batchSize
        self.epochCheckInterval = epochCheckInterval
        self.now = now
        inbox = RoomChangeInbox(tick: blockTimeout)
    }

    /// Makes the poll in progress (or the next one) return at once: call it after changing the rooms
    /// followed, from anywhere.
    var wake: @Sendable () -> Void { { [inbox] in inbox.wake() } }

    /// The rooms followed, each with the epoch and the last rev delivered.
    var positions: [String: RoomHead] {
        cursors.mapValues { RoomHead(epoch: $0.epoch, rev: $0.rev, created: false) }
    }

    /// Whether every followed room's subscription is confirmed and its log read since: from then on,
    /// only messages move the rooms on.
    var isCaughtUp: Bool { cursors.values.allSatisfy { $0.subscribed && !$0.needsRead } }

    /// Starts (or restarts) following `room` after `rev` of `epoch`.
    mutating func follow(room: String, epoch: String, after rev: Int64) {
        let channel = sequencer.changesChannel(room: room)
        // Still subscribed there when it had not been settled: no new SSUBSCRIBE needed to hear it, but
        // the cursor starts over, so the log is read after a fresh confirmation.
        leaving[channel] = nil
        roomByChannel[channel] = room
        cursors[room] = Cursor(epoch: epoch, rev: rev)
    }

    /// Stops following `room`.
    mutating func unfollow(room: String) {
        guard let cursor = cursors.removeValue(forKey: room) else { return }
        leave(room, cursor: cursor)
    }

    /// Ends every subscription of rooms no longer followed (the follow loop calls it before it parks,
    /// so that nothing piles up meanwhile).
    mutating func settle() {
        var channels: [RedisEndpoint: [String]] = [:]
        for (channel, node) in leaving { channels[node, default: []].append(channel) }
        for (node, list) in channels { subscribers[node]?.subscriber.unsubscribe(list.sorted()) }
        leaving = [:]
        if cursors.isEmpty { inbox.clear() }
    }

    /// Closes the subscriber connections (the follow loop's end); a later poll opens new ones.
    mutating func close() {
        for (subscriber, _) in subscribers.values { subscriber.close() }
        subscribers = [:]
    }

    /// Waits up to `blockTimeout` for news of any followed room and returns what happened, in rev order
    /// per room. Returns at once with nothing when no room is followed.
    /// - Throws: `RedisError` when no subscriber connection can be opened, or a read fails with
    ///   nothing else to report (the cursors are unchanged then, so the next poll continues).
    mutating func poll() async throws(RedisError) -> [RoomLogEvent] {
        settle()
        guard !cursors.isEmpty else { return [] }
        var failure: RedisError?
        do {
            try await subscribe()
        } catch {
            failure = error
        }
        var events: [RoomLogEvent] = []
        try await checkMarker()
        let reading = cursors.values.contains { $0.subscribed && $0.needsRead }
        for item in await inbox.take(block: !reading && failure == nil) {
            switch item {
            case .closed(let error, let connection):
                guard let node = node(of: connection) else { continue }
                // Whatever came after is unknown: the server's rooms are read again once subscribed again,
                // routed again when a slot moved.
                subscribers[node] = nil
                if RedisRedirect(error, fallbackHost: node.host) != nil { routingStale = true }
                for (room, cursor) in cursors where cursor.node == node { reroute(room, stale: routingStale) }
            case .push(.subscribed(let channel), let connection):
                guard let room = roomByChannel[channel], let cursor = cursors[room], cursor.requested, cursor.connection == connection else { continue }
                cursors[room]?.subscribed = true
                cursors[room]?.needsRead = true
            case .push(.unsubscribed(let channel), let connection):
                guard let room = roomByChannel[channel], let cursor = cursors[room], cursor.subscribed, cursor.connection == connection else { continue }
                // Followed still, so Redis ended it: the slot moved to another shard.
                routingStale = true
                reroute(room, stale: true)
            case .push(.message(let channel, let payload), let connection):
                guard let room = roomByChannel[channel], let cursor = cursors[room], cursor.subscribed, !cursor.needsRead,
                      cursor.connection == connection else { continue }
                receive(RoomChangeMessage(payload), room: room, into: &events)
            }
        }
        do {
            try await read(into: &events)
        } catch {
            if failure == nil { failure = error }
        }
        if let failure, events.isEmpty { throw failure }
        return events
    }

    /// Routes the rooms not yet subscribed, opens the servers' subscriber connections they need and
    /// subscribes them; a server that cannot be reached leaves its rooms for the next poll.
    /// - Throws: the first `RedisError` met, after doing what the other servers allow.
    private mutating func subscribe() async throws(RedisError) {
        if routingStale {
            routingStale = false
            await sequencer.client.refreshRouting()
        }
        let unrouted = cursors.filter { $0.value.node == nil }.keys.sorted()
        if !unrouted.isEmpty {
            let nodes = try await sequencer.client.servers(for: unrouted.map { sequencer.changesChannel(room: $0) })
            for (room, node) in zip(unrouted, nodes) { cursors[room]?.node = node }
        }
        // The servers with a room to subscribe or a connection that closed (its news may not be in yet):
        // a check per room, nothing hashed, since this runs at every poll.
        var requests: Set<RedisEndpoint> = []
        for cursor in cursors.values where !cursor.requested { requests.insert(cursor.node!) }
        for (node, current) in subscribers where !current.subscriber.isOpen { requests.insert(node) }
        var failure: RedisError?
        for node in requests {
            if let retry = retries[node], now() < retry.at { continue }
            do throws(RedisError) {
                let (subscriber, connection) = try await connectedSubscriber(node)
                retries[node] = nil
                let pending = cursors.filter { $0.value.node == node && !$0.value.requested }.keys.sorted()
                subscriber.subscribe(pending.map { sequencer.changesChannel(room: $0) })
                for room in pending {
                    cursors[room]?.requested = true
                    cursors[room]?.connection = connection
                }
            } catch {
                failure = failure ?? error
                let wait = min(max((retries[node]?.wait ?? .zero) * 2, .milliseconds(50)), .seconds(1))
                retries[node] = (now() + wait, wait)
                // The server may be gone for good (a failover): ask the layout again next time.
                if sequencer.client.isSharded {
                    routingStale = true
                    for (room, cursor) in cursors where cursor.node == node { cursors[room]?.node = nil }
                }
            }
        }
        if let failure { throw failure }
    }

    /// The open subscriber connection to `node`, opening one (and starting its rooms over) when needed.
    private mutating func connectedSubscriber(_ node: RedisEndpoint) async throws(RedisError) -> (RedisSubscriber, connection: Int) {
        if let current = subscribers[node], current.subscriber.isOpen { return current }
        subscribers[node] = nil
        connections += 1
        let connection = connections
        let inbox = inbox
        let opened = try await sequencer.client.subscriber(at: node, receive: { inbox.put(.push($0, connection: connection)) },
                                                           closed: { inbox.put(.closed($0, connection: connection)) })
        subscribers[node] = (opened, connection)
        leaving = leaving.filter { $0.value != node }
        for (room, cursor) in cursors where cursor.node == node {
            cursors[room]?.requested = false
            cursors[room]?.subscribed = false
            cursors[room]?.needsRead = true
        }
        return (opened, connection)
    }

    /// The server whose current subscriber connection is number `connection` (nil for one replaced).
    private func node(of connection: Int) -> RedisEndpoint? {
        subscribers.first { $0.value.connection == connection }?.key
    }

    /// Starts `room`'s subscription over: read again once subscribed again, on the server its slot
    /// lives on now when `stale`.
    private mutating func reroute(_ room: String, stale: Bool) {
        cursors[room]?.requested = false
        cursors[room]?.subscribed = false
        cursors[room]?.needsRead = true
        if stale, sequencer.client.isSharded { cursors[room]?.node = nil }
    }

    /// One message of `room`'s channel: patches that continue the room, or the reason to read its log.
    private mutating func receive(_ message: RoomChangeMessage?, room: String, into events: inout [RoomLogEvent]) {
        guard let cursor = cursors[room] else { return }
        switch message {
        case .patches(let patches):
            guard let first = patches.first else { return }
            guard first.epoch == cursor.epoch else {
                drop(room)
                events.append(.reset(room: room, epoch: first.epoch, reason: .epochChanged))
                return
            }
            guard first.rev > cursor.rev else {
                // Folded already, or, when it reaches past the cursor, a batch whose head may not be in
                // the log (a write that lost a compare-and-append is published after the winner's): the
                // log says what follows the cursor.
                if let last = patches.last, last.rev > cursor.rev { cursors[room]?.needsRead = true }
                return
            }
            guard first.rev == cursor.rev + 1 else {
                // A message was missed: the log has it.
                cursors[room]?.needsRead = true
                return
            }
            if let event = advance(room: room, with: patches) { append(event, to: &events) }
        case .epoch(let epoch):
            guard epoch != cursor.epoch else { return }
            drop(room)
            events.append(.reset(room: room, epoch: epoch, reason: .epochChanged))
        case .signal(let signal):
            append(.signals(room: room, [signal]), to: &events)
        case nil:
            cursors[room]?.needsRead = true
        }
    }

    /// Reads the log (and epoch) of every subscribed room that needs it, in one pipeline.
    private mutating func read(into events: inout [RoomLogEvent]) async throws(RedisError) {
        let rooms = cursors.filter { $0.value.subscribed && $0.value.needsRead }.keys.sorted()
        guard !rooms.isEmpty else { return }
        var commands: [[RedisArgument]] = []
        for room in rooms {
            let keys = sequencer.keys(room: room)
            commands.append(["HGET", RedisArgument(keys.meta), "epoch"])
            commands += RedisRoomSequencer.logRead(log: keys.log, after: cursors[room]!.rev, count: batchSize)
        }
        let replies = try await sequencer.client.pipeline(commands)
        // A room whose read failed (its shard down) stays due; the others go on.
        var failure: RedisError?
        for (index, room) in rooms.enumerated() {
            do throws(RedisError) {
                let epoch = try replies[3 * index].get().string
                guard epoch == cursors[room]?.epoch else {
                    drop(room)
                    events.append(.reset(room: room, epoch: epoch, reason: .epochChanged))
                    continue
                }
                let (entries, page) = try RedisRoomSequencer.logEntries(replies[(3 * index + 1)...(3 * index + 2)])
                guard let patches = RedisRoomSequencer.patches(from: entries, after: cursors[room]!.rev) else {
                    throw .unexpectedReply(command: "XRANGE", reply: "\(entries)")
                }
                // A full page means more may follow: read again at the next poll.
                cursors[room]?.needsRead = page >= batchSize
                if let event = advance(room: room, with: patches) { append(event, to: &events) }
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }

    /// Reads the marker whose loss says Redis lost its data without a restart (`FLUSHALL`): then every
    /// room is read again, with its epoch. One read per interval, whatever the number of rooms.
    private mutating func checkMarker() async throws(RedisError) {
        let started = now()
        if let lastMarkerCheck, started - lastMarkerCheck < epochCheckInterval { return }
        // Only servers this follower hears from: a server without its subscriber has its rooms read
        // again once that subscriber is back, and may be down (the poll must not wait for it).
        let shardKeys = try await sequencer.client.shardKeys(prefix: sequencer.markerKey)
        let servers = try await sequencer.client.servers(for: shardKeys)
        let keys = zip(shardKeys, servers).filter { subscribers[$0.1]?.subscriber.isOpen == true }.map(\.0)
        let candidate = Hex.lowercase(SecureRandom().bytes(count: 8))
        let replies = keys.isEmpty ? [] : try await sequencer.client.pipeline(keys.map { ["SET", RedisArgument($0), RedisArgument(candidate), "NX", "GET"] })
        var lost = false
        for (key, reply) in zip(keys, replies) {
            // A marker that cannot be read now is read at the next check.
            guard case .success(let value) = reply else { continue }
            let current = value.string ?? candidate
            // A key that moved to another shard with its slot reads as lost once: one extra read of every room.
            if value.string == nil || (markers[key] != nil && markers[key] != current) { lost = true }
            markers[key] = current
        }
        if lost {
            for room in cursors.keys { cursors[room]?.needsRead = true }
        }
        lastMarkerCheck = started
    }

    /// Adds `event` to `events`, merging it into the last one when both are patches (or signals) of one room.
    private func append(_ event: RoomLogEvent, to events: inout [RoomLogEvent]) {
        switch (events.last, event) {
        case (.patches(let room, let earlier)?, .patches(let next, let later)) where room == next:
            events[events.count - 1] = .patches(room: room, earlier + later)
        case (.signals(let room, let earlier)?, .signals(let next, let later)) where room == next:
            events[events.count - 1] = .signals(room: room, earlier + later)
        default:
            events.append(event)
        }
    }

    private mutating func drop(_ room: String) {
        guard let cursor = cursors.removeValue(forKey: room) else { return }
        leave(room, cursor: cursor)
    }

    private mutating func leave(_ room: String, cursor: Cursor) {
        let channel = sequencer.changesChannel(room: room)
        roomByChannel[channel] = nil
        if cursor.requested, let node = cursor.node { leaving[channel] = node }
    }

    /// Checks that `patches` continue the room's cursor and moves it; nil when the room was reset before.
    private mutating func advance(room: String, with patches: [SequencedPatch]) -> RoomLogEvent? {
        guard var cursor = cursors[room], !patches.isEmpty else { return nil }
        for patch in patches {
            guard patch.epoch == cursor.epoch else {
                drop(room)
                return .reset(room: room, epoch: patch.epoch, reason: .epochChanged)
            }
            guard patch.rev == cursor.rev + 1 else {
                drop(room)
                return .reset(room: room, epoch: cursor.epoch, reason: .outsideWindow)
            }
            cursor.rev = patch.rev
        }
        cursors[room] = cursor
        return .patches(room: room, patches)
    }
}
