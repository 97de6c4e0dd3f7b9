import Foundation
import TandemProtocol
import TandemRedis
import TandemWire

/// The cluster's room sequencer: gives every patch of a room its rev atomically in Redis, so any
/// number of nodes share one total order per room, with exactly-once per client seq, structural
/// limits, a capped log for resume, and an epoch that changes when Redis lost the room.
///
/// Stateless apart from its settings: every call is one script run or one read, safe from any task.
/// A reply means Redis has applied the write in memory; how durable that is depends on Redis's
/// persistence settings (see docs/CLUSTER.md).
package struct RedisRoomSequencer: Sendable {
    /// Limits and names.
    package struct Settings: Sendable, Equatable {
        /// The prefix of every key (`tandem:{room}:meta`…).
        package var keyPrefix: String
        /// Entries kept in a room's log: the resume window in revs.
        package var logLength: Int
        /// The most ops one patch may carry.
        package var maxOps: Int
        /// The largest serialized ops array, in bytes.
        package var maxPatchBytes: Int
        /// Whether Redis keeps every acknowledged write across a restart (`appendonly yes` with
        /// `appendfsync always`). When false, a Redis restart gives every room a new epoch on its next use.
        package var trustsPersistence: Bool
        /// Revs between two stored snapshots (the engine stores one at each multiple).
        package var snapshotInterval: Int64 = 1_000
        /// How long a deleted room's marker stays (nodes that serve it learn of the deletion within it).
        package var deletionMarkerSeconds: Int
        /// When set, log entries older than this many milliseconds are dropped at each stored snapshot,
        /// except the newest `resumeWindow` revs.
        package var retainedMilliseconds: Int64?
        /// The revs a time-based trim never drops (the resume window).
        package var resumeWindow: Int64 = 0
        /// A client's exactly-once progress is dropped once the room has not applied a patch of it for
        /// this long, ms (looked for when a snapshot is stored, at most hourly).
        package var progressTTL: Int64 = 30 * 86_400_000
        /// The most clients whose progress a room keeps; beyond it (and a sixteenth) the least recently
        /// applied are dropped when a snapshot is stored.
        package var maxTrackedClients = 10_000

        /// Defaults: prefix `tandem`, 10,000 revs of log, 100 ops, 256 KiB, persistence not trusted, a day of
        /// deletion marker.
        package init(keyPrefix: String = "tandem", logLength: Int = 10_000, maxOps: Int = 100, maxPatchBytes: Int = 256 << 10,
                    trustsPersistence: Bool = false, deletionMarkerSeconds: Int = 86_400) {
            self.keyPrefix = keyPrefix
            self.logLength = logLength
            self.maxOps = maxOps
            self.maxPatchBytes = maxPatchBytes
            self.trustsPersistence = trustsPersistence
            self.deletionMarkerSeconds = deletionMarkerSeconds
        }
    }

    /// The connection to Redis (shared, pipelined).
    package let client: any RedisCommandSending
    /// The limits applied.
    package let settings: Settings
    private let random: any RandomByteSource
    private let now: @Sendable () -> Int64
    /// When set, rooms' batches share script calls (`AppendCoalescer`).
    private let coalescer: AppendCoalescer?

    /// A sequencer over `client`; `random` makes new epochs, `now` (unix ms) dates each appended patch.
    /// - Parameters:
    ///   - coalescesRooms: a few calls at Redis at once, started at least `commitInterval` apart (timed
    ///     by `clock`); the rooms' batches that come while the next call may not start wait and go
    ///     together in it (group commit across rooms, for a node's engine). Otherwise each batch is its
    ///     own call.
    package init(client: any RedisCommandSending, settings: Settings = Settings(), random: any RandomByteSource = SecureRandom(),
         now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1_000) }, coalescesRooms: Bool = false,
         commitInterval: Duration = .zero, clock: any Clock<Duration> = ContinuousClock()) {
        coalescer = coalescesRooms ? AppendCoalescer(interval: commitInterval, clock: clock) : nil
        self.client = client
        self.settings = settings
        self.random = random
        self.now = now
    }

    /// The keys of `room`.
    package func keys(room: String) -> RoomKeys {
        RoomKeys(prefix: settings.keyPrefix, room: room)
    }

    /// The room's epoch and rev, creating the room (with a new random epoch) when Redis has no trace of it.
    /// - Throws: `RedisError`.
    package func open(room: String) async throws(RedisError) -> RoomHead {
        let reply = try await client.evaluate(RoomSequencerScripts.open, keys: keys(room: room).all, arguments: [RedisArgument(newEpoch()), trusted],
                                              appendingServerRunID: true)
        guard let fields = reply.array, fields.count == 3, let epoch = fields[0].string, let rev = fields[1].integer, let origin = fields[2].integer else {
            throw .unexpectedReply(command: "open room script", reply: "\(reply)")
        }
        return RoomHead(epoch: epoch, rev: rev, created: origin == 1, rotated: origin == 2)
    }

    /// The room's change channel (sharded Pub/Sub; the hash tag puts it in the room's slot): every
    /// appended batch, epoch change and signal is told there (`RoomChangeMessage`).
    package func changesChannel(room: String) -> String {
        "\(settings.keyPrefix):{\(room)}:changes"
    }

    /// A key every follower reads now and then: when it is gone or holds another value than before,
    /// Redis lost its data without restarting (`FLUSHALL`), and every followed room is read again.
    var markerKey: String { "\(settings.keyPrefix):marker" }

    /// Publishes an ephemeral message to every node following the room. Best effort, like Pub/Sub: a
    /// node that is not subscribed at that moment never sees it.
    /// - Throws: `RedisError`.
    func publish(room: String, _ signal: RoomSignal) async throws(RedisError) {
        _ = try await client.send(["SPUBLISH", RedisArgument(changesChannel(room: room)), RedisArgument(bytes: RoomChangeMessage.signal(signal).encoded)])
    }

    /// Sequences one patch of `client` (author `user`) with its `seq` and `ops` (a JSON array).
    /// - Parameter baseRev: when given, the patch is appended only if the room's rev is still this one
    ///   (the node validated it against that state); otherwise the outcome is `.behind`.
    /// - Throws: `RedisError`; `.connectionLost` means the patch may or may not have been appended, and
    ///   resubmitting the same seq is safe (exactly-once).
    /// - Parameter localRejection: the node's reason why the patch is invalid against its replica at
    ///   `baseRev`; the script then answers `duplicate`, `behind` or `rejected` with that reason, never `applied`.
    package func append(room: String, client clientID: String, user: String, seq: Int64, ops: [UInt8], baseRev: Int64? = nil,
                       localRejection: String? = nil) async throws(RedisError) -> SequencerOutcome {
        let batch = [SequencerEntry(client: clientID, user: user, seq: seq, ops: ops, localRejection: localRejection)]
        return try await append(room: room, batch, baseRev: baseRev, validated: false)[0]
    }

    /// Sequences `entries` of one room in order in one script call (group commit): each as the single
    /// `append` would, the first one checked against `baseRev`, each next one against the rev the earlier
    /// ones left. At the first entry whose outcome is not the one the node expected (`.applied`, or
    /// `.rejected` for an entry with a `localRejection`), the rest are `.skipped`: submit them again.
    /// - Returns: one outcome per entry, in order.
    /// - Throws: `RedisError`; `.connectionLost` means any of them may have been appended (resubmitting
    ///   the same seqs is safe).
    /// - Parameter validated: the node parsed every entry's ops as a valid op list within the limits (an
    ///   entry without a `localRejection`): the script then checks their size only.
    /// - Parameter head: the epoch and rev of the state the node checked the batch against: when every
    ///   entry is expected to be appended, the batch goes in the script's short form, which costs Redis
    ///   no work per patch (the outcomes are the same).
    /// - Parameter admitted: `turn()` returned true for this batch.
    package func append(room: String, _ entries: [SequencerEntry], baseRev: Int64?, validated: Bool = false,
                        head: (epoch: String, rev: Int64)? = nil, admitted: Bool = false) async throws(RedisError) -> [SequencerOutcome] {
        let batch = RoomBatch(room: room, entries: entries, baseRev: baseRev, validated: validated, head: head)
        if let coalescer { return try await coalescer.append(batch, through: self, admitted: admitted) }
        return try await append([batch])[0]
    }

    /// Waits, while the node's calls are paced and a pause runs, until the next call may start, so that
    /// a room takes its batch then, with what arrived meanwhile (`AppendCoalescer.turn()`). True means
    /// that call waits for the caller: pass `admitted: true` to the batch's `append`, or call `withdraw()`.
    func turn() async -> Bool {
        await coalescer?.turn() ?? false
    }

    /// Tells the coalescer that a room `turn()` let in has no batch after all.
    func withdraw() {
        coalescer?.withdraw(through: self)
    }

    /// The room batches waiting for a call or carried by those at Redis (0 when rooms are not coalesced).
    var pendingRoomBatches: Int { coalescer?.pending ?? 0 }

    /// Whether the next call that appends must wait for the commit interval to pass (for tests).
    var commitPaused: Bool { coalescer?.paused ?? false }

    /// One room's batch, as `append(room:_:baseRev:validated:)` takes it.
    package struct RoomBatch: Sendable {
        var room: String
        var entries: [SequencerEntry]
        var baseRev: Int64?
        var validated: Bool
        /// The epoch and rev the node checked the entries against (see `append(room:_:baseRev:validated:head:)`).
        var head: (epoch: String, rev: Int64)? = nil
    }

    /// Sequences the batches of several rooms as `append(_:)` does: in one script call on one server; on
    /// a Redis Cluster, one call per shard, all sent at once, each carrying that shard's rooms. A shard
    /// that refuses its call (a slot moved since the map was read: the script fails before it writes)
    /// gets one call per slot instead, each routed on its own.
    /// - Returns: per batch, in order, its outcomes or the error of the call that carried it.
    func appendRouted(_ batches: [RoomBatch]) async -> [Result<[SequencerOutcome], RedisError>] {
        guard client.isSharded, batches.count > 1 else { return await appendInOneCall(batches) }
        let servers: [RedisEndpoint]
        do throws(RedisError) {
            servers = try await client.servers(for: batches.map { keys(room: $0.room).meta })
        } catch {
            return Array(repeating: .failure(error), count: batches.count)
        }
        var groups: [RedisEndpoint: [Int]] = [:]
        for (index, server) in servers.enumerated() { groups[server, default: []].append(index) }
        return await Self.gather(batches, groups: Array(groups.values)) { part async in
            let outcomes = await appendInOneCall(part)
            guard case .failure(let error)? = outcomes.first, error.isMisrouted else { return outcomes }
            return await appendBySlot(part)
        }
    }

    /// The batches in one call, each with its outcomes or the call's error.
    private func appendInOneCall(_ batches: [RoomBatch]) async -> [Result<[SequencerOutcome], RedisError>] {
        do throws(RedisError) {
            return try await append(batches).map { .success($0) }
        } catch {
            return Array(repeating: .failure(error), count: batches.count)
        }
    }

    /// One call per slot among `batches`, all at once.
    private func appendBySlot(_ batches: [RoomBatch]) async -> [Result<[SequencerOutcome], RedisError>] {
        var groups: [Int: [Int]] = [:]
        for (index, batch) in batches.enumerated() { groups[RedisHashSlot.of(keys(room: batch.room).meta), default: []].append(index) }
        return await Self.gather(batches, groups: Array(groups.values)) { await appendInOneCall($0) }
    }

    /// Runs `body` on each group of `batches` (indices) at once and puts the results back in order.
    private static func gather(_ batches: [RoomBatch], groups: [[Int]],
                               _ body: @escaping @Sendable ([RoomBatch]) async -> [Result<[SequencerOutcome], RedisError>]) async
        -> [Result<[SequencerOutcome], RedisError>] {
        if groups.count == 1 { return await body(batches) }
        var results = [Result<[SequencerOutcome], RedisError>](repeating: .success([]), count: batches.count)
        await withTaskGroup(of: (indices: [Int], outcomes: [Result<[SequencerOutcome], RedisError>]).self) { calls in
            for indices in groups {
                calls.addTask { (indices, await body(indices.map { batches[$0] })) }
            }
            for await call in calls {
                for (index, outcome) in zip(call.indices, call.outcomes) { results[index] = outcome }
            }
        }
        return results
    }

    /// Sequences the batches of several rooms in one script call (on a Redis Cluster, rooms of one slot), each as
    /// `append(room:_:baseRev:validated:head:)` would, in order. A batch in the short form that Redis
    /// found otherwise than the node expected goes again in the long form, in a second call; the batches
    /// of a room named more than once go in the long form, so that none of them can overtake another.
    /// - Returns: the outcomes of each batch, in order.
    /// - Throws: `RedisError` for the whole call.
    func append(_ batches: [RoomBatch]) async throws(RedisError) -> [[SequencerOutcome]] {
        let time = now()
        var keys: [String] = []
        keys.reserveCapacity(2 * batches.count)
        var arguments: [RedisArgument] = [
            RedisArgument(newEpoch()), trusted, RedisArgument(Int64(settings.logLength)), RedisArgument(time),
        ]
        arguments.reserveCapacity(arguments.count + batches.reduce(0) { $0 + 2 + 4 * $1.entries.count })
        var short: [Bool] = []
        short.reserveCapacity(batches.count)
        var named: [String: Int] = [:]
        for batch in batches { named[batch.room, default: 0] += 1 }
        for batch in batches {
            let roomKeys = self.keys(room: batch.room)
            keys += [roomKeys.meta, roomKeys.log]
            if let head = batch.head, named[batch.room] == 1, let form = AppendShortForm(batch.entries, epoch: head.epoch, rev: head.rev, checksRev: batch.baseRev != nil,
                                                                 validated: batch.validated, time: time, settings: settings) {
                arguments += form.arguments
                short.append(true)
                continue
            }
            short.append(false)
            arguments += [RedisArgument(Int64(batch.entries.count)), RedisArgument(batch.baseRev ?? -1)]
            for entry in batch.entries {
                var record: [UInt8] = []
                record.reserveCapacity(entry.ops.count + entry.user.utf8.count + entry.client.utf8.count + 32)
                RoomChangeMessage.appendRecord(user: entry.user, client: entry.client, seq: entry.seq, ops: entry.ops, to: &record)
                arguments += [RedisArgument(RoomKeys.progressField(author: Peer(user: entry.user, client: entry.client))), RedisArgument(entry.seq), RedisArgument(refusal(of: entry, validated: batch.validated)),
                              RedisArgument(bytes: record)]
            }
        }
        // Redis Cluster refuses a script that declares keys of several slots: past the first room's, the
        // keys go as arguments (the caller sends one shard's rooms).
        var passed = 0
        if client.isSharded, let first = keys.first {
            let slot = RedisHashSlot.of(first)
            if keys.dropFirst(2).contains(where: { RedisHashSlot.of($0) != slot }) {
                arguments += keys.dropFirst(2).map { RedisArgument($0) }
                passed = keys.count - 2
                keys.removeLast(passed)
            }
        }
        arguments.append(RedisArgument(Int64(passed)))
        let reply = try await client.evaluate(RoomSequencerScripts.append, keys: keys, arguments: arguments, appendingServerRunID: true)
        guard let fields = reply.array else { throw .unexpectedReply(command: "append script", reply: "\(reply)") }
        var results: [[SequencerOutcome]?] = [], offset = 0
        results.reserveCapacity(batches.count)
        for (batch, short) in zip(batches, short) {
            guard offset < fields.count, let length = fields[offset].integer, offset + 1 + Int(length) <= fields.count else {
                throw .unexpectedReply(command: "append script", reply: "\(reply)")
            }
            let room = fields[(offset + 1)..<(offset + 1 + Int(length))]
            results.append(short ? try AppendShortForm.outcomes(room, of: batch) : try outcomes(room, count: batch.entries.count))
            offset += 1 + Int(length)
        }
        // The short forms Redis sent back, in the long form, which answers every case.
        let again = results.indices.filter { results[$0] == nil }
        if !again.isEmpty {
            let long = try await append(again.map { index in
                var batch = batches[index]
                batch.head = nil
                return batch
            })
            for (index, outcomes) in zip(again, long) { results[index] = outcomes }
        }
        return results.map { $0 ?? [] }
    }

    /// The rejection the script is to answer for `entry` when it gets that far (empty: none). The script
    /// never judges a patch: the node's own verdict goes first; then the size of the log entry; then, for
    /// ops no node checked against the room, their form and number by the rules a participant's patch
    /// meets (`PatchOp.list`, `PatchLimits.admitOpCount`), so nothing the log holds fails to fold.
    private func refusal(of entry: SequencerEntry, validated: Bool) -> String {
        if let reason = entry.localRejection { return reason }
        if let oversize = oversize(entry) { return oversize }
        guard !validated else { return "" }
        do throws(PatchError) {
            let value: JSONValue
            do {
                value = try JSONValue.parseStored(entry.ops)
            } catch {
                throw PatchError.invalidOp(op: 0, reason: "\"ops\" must be a JSON array: \(error)")
            }
            try PatchLimits(maxOps: settings.maxOps).admitOpCount(try PatchOp.list(from: value).count)
            return ""
        } catch {
            return ClusterRejection.encode(error)
        }
    }

    /// The refusal of a patch whose ops take more bytes than a log entry may hold, nil when they fit.
    func oversize(_ entry: SequencerEntry) -> String? {
        guard entry.ops.count > settings.maxPatchBytes else { return nil }
        return ClusterRejection.encode(code: .tooLarge, message: "the patch has \(entry.ops.count) bytes; at most \(settings.maxPatchBytes) are allowed")
    }

    /// Decodes one room's `append` reply.
    private func outcomes(_ reply: ArraySlice<RESPValue>, count: Int) throws(RedisError) -> [SequencerOutcome] {
        // A slice of the whole reply keeps its indices: field k is at `start + k`.
        let start = reply.startIndex
        func field(_ k: Int) -> RESPValue { reply[start + k] }
        guard reply.count >= 3, let epoch = field(0).string else { throw .unexpectedReply(command: "append script", reply: "\(Array(reply))") }
        if reply.count == 3, field(2).string == "lost" { return Array(repeating: .lost, count: count) }
        guard reply.count == 2 + 4 * count else { throw .unexpectedReply(command: "append script", reply: "\(Array(reply))") }
        var outcomes: [SequencerOutcome] = []
        outcomes.reserveCapacity(count)
        for index in 0..<count {
            let offset = 2 + 4 * index
            guard let status = field(offset).string, let rev = field(offset + 1).integer, let usedSeq = field(offset + 3).integer else {
                throw .unexpectedReply(command: "append script", reply: "\(Array(reply))")
            }
            switch status {
            case "applied": outcomes.append(.applied(epoch: epoch, rev: rev, seq: usedSeq))
            case "duplicate": outcomes.append(.duplicate(epoch: epoch, rev: rev))
            case "behind": outcomes.append(.behind(epoch: epoch, rev: rev))
            case "rejected": outcomes.append(.rejected(epoch: epoch, reason: field(offset + 2).string ?? ""))
            case "skipped": outcomes.append(.skipped)
            default: throw .unexpectedReply(command: "append script", reply: "\(Array(reply))")
            }
        }
        return outcomes
    }

    /// Up to `limit` logged patches with rev > `after`, in rev order. When the first returned rev is
    /// not `after + 1`, the missed patches have left the log: the reader needs a snapshot instead.
    /// - Throws: `RedisError`.
    func patches(room: String, after: Int64, limit: Int = 1_000) async throws(RedisError) -> [SequencedPatch] {
        let replies = try await client.pipeline(Self.logRead(log: keys(room: room).log, after: after, count: limit))
        guard var patches = Self.patches(from: try Self.logEntries(replies).entries, after: after) else {
            throw .unexpectedReply(command: "XRANGE", reply: "\(replies)")
        }
        if patches.count > limit { patches.removeLast(patches.count - limit) }
        return patches
    }

    /// The two commands that read a log from the entry holding rev `after + 1` on, up to `count`
    /// entries after it: an entry's id is its last rev or its first one (both are read), so the entry
    /// holding `after + 1` is either the first at or after that id or the last before it.
    static func logRead(log: String, after: Int64, count: Int) -> [[RedisArgument]] {
        let id = "\(after + 1)-0"
        return [["XREVRANGE", RedisArgument(log), RedisArgument("(" + id), "-", "COUNT", "1"],
                ["XRANGE", RedisArgument(log), RedisArgument(id), "+", "COUNT", RedisArgument(Int64(count))]]
    }

    /// The entries of a `logRead`'s two replies, in log order, and how many the second one returned
    /// (its `count` reached means more may follow). The entry before `after + 1` is there even when it
    /// holds only earlier revs: `patches(from:after:)` drops those.
    /// - Throws: the replies' `RedisError`, or `.unexpectedReply`.
    static func logEntries(_ replies: some Collection<Result<RESPValue, RedisError>>) throws(RedisError) -> (entries: [RESPValue], page: Int) {
        guard replies.count == 2 else { throw .unexpectedReply(command: "XRANGE", reply: "\(replies.count) replies") }
        let before = try replies[replies.startIndex].get(), after = try replies[replies.index(after: replies.startIndex)].get()
        guard let earlier = before.array, let entries = after.array else { throw .unexpectedReply(command: "XRANGE", reply: "\(before) \(after)") }
        return (earlier + entries, entries.count)
    }

    /// Brings back a room that Redis lost from a node's copy of it: if (and only if) the room does not
    /// exist, creates it in a new epoch at rev 0 with `state` as its snapshot and each client's last seq.
    /// - Returns: whether it seeded (false: the room exists; someone else seeded or created it first).
    /// - Throws: `RedisError`.
    /// - Parameters:
    ///   - epoch: the epoch of the copy: a room deleted in that epoch is not brought back.
    ///   - forgot: the copy's room had dropped some author's progress (the new room keeps saying so).
    @discardableResult
    func seed(room: String, state: [UInt8], epoch: String, lastSeqs: [Peer: Int64], forgot: Bool = false) async throws(RedisError) -> SeedOutcome {
        var arguments: [RedisArgument] = [RedisArgument(newEpoch()), trusted, RedisArgument(bytes: state), RedisArgument(epoch), forgot ? "1" : "0"]
        for (author, seq) in lastSeqs.sorted(by: { ($0.key.user, $0.key.client) < ($1.key.user, $1.key.client) }) {
            arguments.append(RedisArgument(RoomKeys.progressField(author: author)))
            arguments.append(RedisArgument(seq))
        }
        switch try await client.evaluate(RoomSequencerScripts.seed, keys: keys(room: room).all, arguments: arguments).integer {
        case 1: return .seeded
        case 2: return .deleted
        default: return .exists
        }
    }

    /// What `seed` did.
    enum SeedOutcome: Sendable, Equatable {
        /// The room is back, in a new epoch, from the copy.
        case seeded
        /// The room exists in Redis: nothing was lost, or another node was first.
        case exists
        /// A backend deleted the room in the copy's epoch: it stays deleted.
        case deleted
    }

    /// Deletes the room: its epoch, progress, log and snapshots; for `deletionMarkerSeconds` a marker says
    /// which epoch was deleted. - Returns: whether there was a room.
    /// - Throws: `RedisError`.
    func delete(room: String) async throws(RedisError) -> Bool {
        try await client.evaluate(RoomSequencerScripts.delete, keys: keys(room: room).all,
                                  arguments: [RedisArgument(Int64(settings.deletionMarkerSeconds))]).integer == 1
    }

    /// The epoch a backend deleted the room in, while its marker lasts.
    /// - Throws: `RedisError`.
    func deletedEpoch(room: String) async throws(RedisError) -> String? {
        try await client.send(["GET", RedisArgument(keys(room: room).deleted)]).string
    }

    /// The room's epoch and rev as Redis holds them, without creating the room (nil when there is none).
    /// - Throws: `RedisError`.
    package func head(room: String) async throws(RedisError) -> (epoch: String, rev: Int64)? {
        let reply = try await client.send(["HMGET", RedisArgument(keys(room: room).meta), "epoch", "rev"])
        guard let fields = reply.array, fields.count == 2 else { throw .unexpectedReply(command: "HMGET", reply: "\(reply)") }
        guard let epoch = fields[0].string, let rev = fields[1].integer else { return nil }
        return (epoch, rev)
    }

    /// The oldest rev the room's log still holds (nil when it is empty).
    /// - Throws: `RedisError`.
    func oldestLoggedRev(room: String) async throws(RedisError) -> Int64? {
        let reply = try await client.send(["XRANGE", RedisArgument(keys(room: room).log), "-", "+", "COUNT", "1"])
        guard let entries = reply.array, let patches = Self.patches(from: entries, after: 0) else {
            throw .unexpectedReply(command: "XRANGE", reply: "\(reply)")
        }
        return patches.first?.rev
    }

    /// The newest retained snapshot at or before `rev` (the newest one kept in `snapshot` counts too).
    /// - Throws: `RedisError`.
    func snapshot(room: String, atOrBefore rev: Int64) async throws(RedisError) -> RoomSnapshot? {
        let keys = keys(room: room)
        let reply = try await client.send(["HKEYS", RedisArgument(keys.snapshots)])
        guard let fields = reply.array else { throw .unexpectedReply(command: "HKEYS", reply: "\(reply)") }
        let kept = fields.compactMap({ $0.string.flatMap { Int64($0) } }).filter({ $0 <= rev }).max()
        // A room whose snapshots predate the kept ones has only the newest.
        if let newest = try await snapshot(room: room), newest.rev <= rev, newest.rev >= (kept ?? -1) { return newest }
        guard let kept else { return nil }
        let state = try await client.send(["HGET", RedisArgument(keys.snapshots), RedisArgument(kept)])
        guard case .bulkString(let bytes) = state else { return nil }
        return RoomSnapshot(epoch: "", rev: kept, state: bytes)
    }

    /// Stores `snapshot` if it belongs to the room's current epoch and is newer than the stored one; with
    /// `retainedMilliseconds` set, the same script drops the log's entries older than that (never inside
    /// the resume window) and the snapshots only they needed.
    /// - Returns: whether it was stored.
    /// - Throws: `RedisError`.
    @discardableResult
    package func storeSnapshot(room: String, _ snapshot: RoomSnapshot) async throws(RedisError) -> Bool {
        // Kept: the snapshots the retained log still rebuilds from (one interval's worth before its oldest rev).
        // Approximate trimming may keep up to a stream node (100 entries by default) more: a margin of 1,000.
        let oldest = snapshot.rev - Int64(settings.logLength) - settings.snapshotInterval - (settings.logLength >= 1_000 ? 1_000 : 0)
        let cutoff = settings.retainedMilliseconds.map { now() - $0 } ?? -1
        let reply = try await client.evaluate(RoomSequencerScripts.storeSnapshot, keys: keys(room: room).all,
                                              arguments: [RedisArgument(snapshot.epoch), RedisArgument(snapshot.rev), RedisArgument(bytes: snapshot.state),
                                                          RedisArgument(oldest), RedisArgument(max(-1, cutoff)),
                                                          RedisArgument(snapshot.rev - settings.resumeWindow + 1), RedisArgument(now()),
                                                          RedisArgument(Int64(settings.maxTrackedClients)), RedisArgument(settings.progressTTL)])
        return reply.integer == 1
    }

    /// The stored snapshot of the room, if any.
    /// - Throws: `RedisError`.
    func snapshot(room: String) async throws(RedisError) -> RoomSnapshot? {
        let reply = try await client.send(["HMGET", RedisArgument(keys(room: room).snapshot), "epoch", "rev", "state"])
        guard let fields = reply.array, fields.count == 3 else { throw .unexpectedReply(command: "HMGET", reply: "\(reply)") }
        guard let epoch = fields[0].string, let rev = fields[1].integer, case .bulkString(let state) = fields[2] else { return nil }
        return RoomSnapshot(epoch: epoch, rev: rev, state: state)
    }

    /// Every author's exactly-once progress in the room, and whether the room ever dropped any (progress
    /// of earlier releases, kept per bare client id, counts as dropped).
    /// The read is not tied to any rev: a caller holding the room at rev r must ignore entries with a
    /// later rev (their patches reach it through the log).
    /// - Throws: `RedisError`.
    func clientProgress(room: String) async throws(RedisError) -> RoomProgress {
        let reply = try await client.send(["HGETALL", RedisArgument(keys(room: room).meta)])
        guard let fields = reply.array, fields.count % 2 == 0 else { throw .unexpectedReply(command: "HGETALL", reply: "\(reply)") }
        var progress = RoomProgress()
        for index in stride(from: 0, to: fields.count, by: 2) {
            guard let name = fields[index].string, let value = fields[index + 1].string else { continue }
            if name == "forgot" || name.hasPrefix(RoomKeys.unownedProgressPrefix) { progress.forgot = true }
            guard let author = RoomKeys.author(ofProgressField: name) else { continue }
            // "lastSeq:lastRev:time", or "lastSeq:lastRev" from earlier releases and re-seeded rooms.
            let parts = value.split(separator: ":")
            guard parts.count == 2 || parts.count == 3, let seq = Int64(parts[0]), let rev = Int64(parts[1]) else {
                throw .unexpectedReply(command: "HGETALL", reply: "\(fields[index + 1])")
            }
            progress.clients[author] = (seq, rev)
        }
        return progress
    }

    /// Decodes log entries (`[id, [field, value, …]]`, in id order) into their patches with rev >
    /// `after`; nil when one is not a well-formed entry. An entry holds one batch (its change message
    /// in field `m`) or, in the one-patch form, a patch's own fields.
    static func patches(from entries: [RESPValue], after: Int64) -> [SequencedPatch]? {
        var patches: [SequencedPatch] = []
        patches.reserveCapacity(entries.count)
        for entry in entries {
            guard let parts = entry.array, parts.count == 2, let id = parts[0].string, let fields = parts[1].array,
                  let rev = Int64(id.prefix { $0 != "-" }) else { return nil }
            var message: [UInt8]?, epoch: String?, user: String?, client: String?, seq: Int64?, ops: [UInt8]?, time: Int64 = 0
            for index in stride(from: 0, to: fields.count - 1, by: 2) {
                switch fields[index].string {
                case "m": if case .bulkString(let bytes) = fields[index + 1] { message = bytes }
                case "epoch": epoch = fields[index + 1].string
                case "user": user = fields[index + 1].string
                case "client": client = fields[index + 1].string
                case "seq": seq = fields[index + 1].integer
                case "ops": if case .bulkString(let bytes) = fields[index + 1] { ops = bytes }
                case "time": time = fields[index + 1].integer ?? 0
                default: break
                }
            }
            if let message {
                // The entry's id is its last rev or its first one.
                guard case .patches(let batch)? = RoomChangeMessage(message), batch.last?.rev == rev || batch.first?.rev == rev else { return nil }
                for patch in batch where patch.rev > after { patches.append(patch) }
            } else {
                guard let epoch, let user, let client, let seq, let ops else { return nil }
                if rev > after { patches.append(SequencedPatch(epoch: epoch, rev: rev, user: user, client: client, seq: seq, ops: ops, time: time)) }
            }
        }
        return patches
    }

    private var trusted: RedisArgument { settings.trustsPersistence ? "1" : "0" }

    /// 16 random bytes in hex: a new epoch candidate (used only when the room has to be created).
    private func newEpoch() -> String {
        Hex.lowercase(random.bytes(count: 16))
    }
}
