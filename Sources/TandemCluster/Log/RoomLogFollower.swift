import TandemProtocol
import TandemRedis
import TandemWire

/// Follows the logs of a node's rooms through their change channels: one subscriber connection
/// (sharded Pub/Sub) hears every batch the rooms' scripts append, with its entries, so a poll costs
/// Redis nothing per followed room, and idle rooms cost nothing at all.
///
/// Pub/Sub may miss messages (before a subscription is confirmed, while the connection is down, a
/// message that does not continue the room's rev), so the log stays the truth: a room is read from its
/// log (`XRANGE` after its rev, with its epoch) once its subscription is confirmed, after every
/// reconnect, and whenever a message leaves a gap. Data loss without a restart (`FLUSHALL`) is caught by
/// one marker key read every `epochCheckInterval`, not by reading every room.
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
        /// SSUBSCRIBE sent on the current connection.
        var requested = false
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
    private var subscriber: RedisSubscriber?
    private var cursors: [String: Cursor] = [:]
    private var roomByChannel: [String: String] = [:]
    private var leaving: Set<String> = []
    private var lastMarkerCheck: ContinuousClock.Instant?
    private var marker: String?

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
        leaving.remove(channel)
        roomByChannel[channel] = room
        cursors[room] = Cursor(epoch: epoch, rev: rev)
    }

    /// Stops following `room`.
    mutating func unfollow(room: String) {
        guard cursors.removeValue(forKey: room) != nil else { return }
        leave(room)
    }

    /// Ends every subscription of rooms no longer followed (the follow loop calls it before it parks,
    /// so that nothing piles up meanwhile).
    mutating func settle() {
        if let subscriber, !leaving.isEmpty { subscriber.unsubscribe(leaving.sorted()) }
        leaving = []
        if cursors.isEmpty { inbox.clear() }
    }

    /// Closes the subscriber connection (the follow loop's end); a later poll opens a new one.
    mutating func close() {
        subscriber?.close()
        subscriber = nil
    }

    /// Waits up to `blockTimeout` for news of any followed room and returns what happened, in rev order
    /// per room. Returns at once with nothing when no room is followed.
    /// - Throws: `RedisError` when no subscriber connection can be opened, or a read fails with
    ///   nothing else to report (the cursors are unchanged then, so the next poll continues).
    mutating func poll() async throws(RedisError) -> [RoomLogEvent] {
        settle()
        guard !cursors.isEmpty else { return [] }
        let subscriber = try await connectedSubscriber()
        let requests = cursors.filter { !$0.value.requested }.keys.sorted()
        if !requests.isEmpty {
            subscriber.subscribe(requests.map { sequencer.changesChannel(room: $0) })
            for room in requests { cursors[room]?.requested = true }
        }
        var events: [RoomLogEvent] = []
        try await checkMarker()
        let reading = cursors.values.contains { $0.subscribed && $0.needsRead }
        for item in await inbox.take(block: !reading) {
            switch item {
            case .closed:
                // Whatever came after is unknown: every room is read again once subscribed again.
                self.subscriber = nil
                for room in cursors.keys { cursors[room]?.requested = false; cursors[room]?.subscribed = false; cursors[room]?.needsRead = true }
            case .push(.subscribed(let channel)):
                guard let room = roomByChannel[channel], cursors[room]?.requested == true else { continue }
                cursors[room]?.subscribed = true
                cursors[room]?.needsRead = true
            case .push(.unsubscribed(let channel)):
                guard let room = roomByChannel[channel] else { continue }
                cursors[room]?.subscribed = false
            case .push(.message(let channel, let payload)):
                guard let room = roomByChannel[channel], let cursor = cursors[room], cursor.subscribed, !cursor.needsRead else { continue }
                receive(RoomChangeMessage(payload), room: room, into: &events)
            }
        }
        do {
            try await read(into: &events)
        } catch {
            if events.isEmpty { throw error }
        }
        return events
    }

    private mutating func connectedSubscriber() async throws(RedisError) -> RedisSubscriber {
        if let subscriber, subscriber.isOpen { return subscriber }
        inbox.clear()
        let inbox = inbox
        let opened = try await sequencer.client.subscriber(receive: { inbox.put(.push($0)) }, closed: { inbox.put(.closed($0)) })
        subscriber = opened
        leaving = []
        for room in cursors.keys { cursors[room]?.requested = false; cursors[room]?.subscribed = false; cursors[room]?.needsRead = true }
        return opened
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
        for (index, room) in rooms.enumerated() {
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
        }
    }

    /// Reads the marker whose loss says Redis lost its data without a restart (`FLUSHALL`): then every
    /// room is read again, with its epoch. One read per interval, whatever the number of rooms.
    private mutating func checkMarker() async throws(RedisError) {
        let started = now()
        if let lastMarkerCheck, started - lastMarkerCheck < epochCheckInterval { return }
        let candidate = Hex.lowercase(SecureRandom().bytes(count: 8))
        let reply = try await sequencer.client.send(["SET", RedisArgument(sequencer.markerKey), RedisArgument(candidate), "NX", "GET"])
        let current = reply.string ?? candidate
        if reply.string == nil || (marker != nil && marker != current) {
            for room in cursors.keys { cursors[room]?.needsRead = true }
        }
        marker = current
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
        cursors[room] = nil
        leave(room)
    }

    private mutating func leave(_ room: String) {
        let channel = sequencer.changesChannel(room: room)
        roomByChannel[channel] = nil
        leaving.insert(channel)
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
