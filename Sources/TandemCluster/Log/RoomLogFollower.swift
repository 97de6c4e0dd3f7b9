import TandemRedis
import TandemProtocol

/// Follows the logs of a node's rooms on one blocking connection: every `poll()` is one `XREAD BLOCK`
/// over all followed rooms' logs and signal streams, preceded in the same pipeline by a check of each
/// room's epoch (and, for a room followed since the last poll, a look at where its signal stream ends).
///
/// Guarantees: for each room, `.patches` events are contiguous in rev order, from one epoch, starting
/// right after the rev the room was followed from; anything that breaks that (an epoch change, a gap
/// after the log was trimmed) becomes one `.reset` and the room is dropped. The sequencer's client must
/// be dedicated to this follower (the blocking read holds its connection). A value with one owner:
/// the node's follow loop. Rooms added between polls are included from the next poll on, so a node
/// that needs a new room at once should use a short `blockTimeout`.
struct RoomLogFollower: Sendable {
    private struct Cursor: Sendable, Equatable {
        var epoch: String
        var rev: Int64
        /// The id of the last signal read; nil until the first poll has looked up where the stream ends.
        var signal: String?
    }

    /// Reads through this sequencer's (dedicated) client.
    let sequencer: RedisRoomSequencer
    /// How long one poll waits for new entries before returning (at least 1 ms).
    var blockTimeout: Duration
    /// The most entries one poll reads per room.
    var batchSize: Int
    /// How often the rooms' epochs are read (a room followed since the last check is checked at the next
    /// poll). Zero checks at every poll. A new entry of another epoch is noticed at once either way; the
    /// check is what notices a room whose data Redis lost while nobody writes to it, at the cost of one
    /// read per room.
    var epochCheckInterval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private var cursors: [String: Cursor] = [:]
    private var lastEpochCheck: ContinuousClock.Instant?
    private var unchecked: Set<String> = []

    /// A follower with no rooms yet.
    /// - Parameter now: the clock `epochCheckInterval` is measured on.
    init(sequencer: RedisRoomSequencer, blockTimeout: Duration = .seconds(1), batchSize: Int = 1_000,
                epochCheckInterval: Duration = .zero, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.sequencer = sequencer
        self.blockTimeout = blockTimeout
        self.batchSize = batchSize
        self.epochCheckInterval = epochCheckInterval
        self.now = now
    }

    /// The rooms followed, each with the epoch and the last rev delivered.
    var positions: [String: RoomHead] {
        cursors.mapValues { RoomHead(epoch: $0.epoch, rev: $0.rev, created: false) }
    }

    /// Starts (or restarts) following `room` after `rev` of `epoch`.
    mutating func follow(room: String, epoch: String, after rev: Int64) {
        cursors[room] = Cursor(epoch: epoch, rev: rev)
        unchecked.insert(room)
    }

    /// Stops following `room`.
    mutating func unfollow(room: String) {
        cursors[room] = nil
        unchecked.remove(room)
    }

    /// Waits up to `blockTimeout` for new entries in any followed room and returns what happened, in
    /// rev order per room. Returns at once with nothing when no room is followed.
    /// - Throws: `RedisError` (the cursors are unchanged, so the next poll continues where this one failed).
    mutating func poll() async throws(RedisError) -> [RoomLogEvent] {
        let rooms = cursors.keys.sorted()
        guard !rooms.isEmpty else { return [] }
        let keys = rooms.map { sequencer.keys(room: $0) }
        let signalKeys = rooms.map { sequencer.signalKey(room: $0) }
        let unplaced = rooms.indices.filter { cursors[rooms[$0]]!.signal == nil }
        let started = now()
        let checkAll = lastEpochCheck.map { started - $0 >= epochCheckInterval } ?? true
        let checked = rooms.indices.filter { checkAll || unchecked.contains(rooms[$0]) }
        var commands: [[RedisArgument]] = checked.map { ["HGET", RedisArgument(keys[$0][0]), "epoch"] }
        commands += unplaced.map { ["XREVRANGE", RedisArgument(signalKeys[$0]), "+", "-", "COUNT", "1"] }
        let milliseconds = max(1, blockTimeout.totalMilliseconds)
        // Signal streams not placed yet read from "$" (what is published from now on) in this first poll.
        let signalIDs = rooms.map { RedisArgument(cursors[$0]!.signal ?? "$") }
        commands.append(["XREAD", "COUNT", RedisArgument(Int64(batchSize)), "BLOCK", RedisArgument(milliseconds), "STREAMS"]
                        + keys.map { RedisArgument($0[2]) } + signalKeys.map { RedisArgument($0) }
                        + rooms.map { RedisArgument("\(cursors[$0]!.rev)-0") } + signalIDs)
        let replies = try await sequencer.client.pipeline(commands)

        var events: [RoomLogEvent] = []
        for (offset, index) in checked.enumerated() {
            let room = rooms[index]
            unchecked.remove(room)
            let current = try replies[offset].get().string
            if current != cursors[room]?.epoch {
                cursors[room] = nil
                events.append(.reset(room: room, epoch: current, reason: .epochChanged))
            }
        }
        if checkAll { lastEpochCheck = started }
        for (offset, index) in unplaced.enumerated() where cursors[rooms[index]] != nil {
            let last = try replies[checked.count + offset].get().array?.first?.array?.first?.string
            cursors[rooms[index]]?.signal = last ?? "0-0"
        }
        let read = try replies[commands.count - 1].get()
        guard read != .null else { return events }
        guard let streams = read.array else { throw .unexpectedReply(command: "XREAD", reply: "\(read)") }
        let roomByLog = Dictionary(uniqueKeysWithValues: zip(keys.map { $0[2] }, rooms))
        let roomBySignals = Dictionary(uniqueKeysWithValues: zip(signalKeys, rooms))
        for stream in streams {
            guard let parts = stream.array, parts.count == 2, let key = parts[0].string, let entries = parts[1].array else {
                throw .unexpectedReply(command: "XREAD", reply: "\(stream)")
            }
            if let room = roomBySignals[key] {
                if let event = signals(room: room, from: entries) { events.append(event) }
                continue
            }
            guard let room = roomByLog[key] else { throw .unexpectedReply(command: "XREAD", reply: "\(stream)") }
            var patches: [SequencedPatch] = []
            for entry in entries {
                guard let patch = RedisRoomSequencer.patch(from: entry) else { throw .unexpectedReply(command: "XREAD", reply: "\(entry)") }
                patches.append(patch)
            }
            if let event = advance(room: room, with: patches) { events.append(event) }
        }
        return events
    }

    /// The signals among `entries` (stream entries `[id, [node, N, data, D]]`), moving the room's signal cursor.
    private mutating func signals(room: String, from entries: [RESPValue]) -> RoomLogEvent? {
        guard cursors[room] != nil else { return nil }
        var signals: [RoomSignal] = []
        for entry in entries {
            guard let parts = entry.array, parts.count == 2, let id = parts[0].string else { continue }
            cursors[room]?.signal = id
            guard let fields = parts[1].array, fields.count == 4, fields[0].string == "node", let node = fields[1].string,
                  case .bulkString(let payload) = fields[3] else { continue }
            signals.append(RoomSignal(node: node, payload: payload))
        }
        return signals.isEmpty ? nil : .signals(room: room, signals)
    }

    /// Checks that `patches` continue the room's cursor and moves it; nil when the room was reset before.
    private mutating func advance(room: String, with patches: [SequencedPatch]) -> RoomLogEvent? {
        guard var cursor = cursors[room], !patches.isEmpty else { return nil }
        for patch in patches {
            guard patch.epoch == cursor.epoch else {
                cursors[room] = nil
                return .reset(room: room, epoch: patch.epoch, reason: .epochChanged)
            }
            guard patch.rev == cursor.rev + 1 else {
                cursors[room] = nil
                return .reset(room: room, epoch: cursor.epoch, reason: .outsideWindow)
            }
            cursor.rev = patch.rev
        }
        cursors[room] = cursor
        return .patches(room: room, patches)
    }
}
