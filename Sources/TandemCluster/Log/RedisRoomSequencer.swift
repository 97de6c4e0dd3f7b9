import TandemRedis
import TandemWire

/// The cluster's room sequencer: gives every patch of a room its rev atomically in Redis, so any
/// number of nodes share one total order per room, with exactly-once per client seq, structural
/// limits, a capped log for resume, and an epoch that changes when Redis lost the room.
///
/// Stateless apart from its settings: every call is one script run or one read, safe from any task.
/// A reply means Redis has applied the write in memory; how durable that is depends on Redis's
/// persistence settings (see docs/CLUSTER.md).
struct RedisRoomSequencer: Sendable {
    /// Limits and names.
    struct Settings: Sendable, Equatable {
        /// The prefix of every key (`tandem:{room}:meta`…).
        var keyPrefix: String
        /// Entries kept in a room's log: the resume window in revs.
        var logLength: Int
        /// The most ops one patch may carry.
        var maxOps: Int
        /// The largest serialized ops array, in bytes.
        var maxPatchBytes: Int
        /// Whether Redis keeps every acknowledged write across a restart (`appendonly yes` with
        /// `appendfsync always`). When false, a Redis restart gives every room a new epoch on its next use.
        var trustsPersistence: Bool

        /// Defaults: prefix `tandem`, 10,000 revs of log, 100 ops, 256 KiB, persistence not trusted.
        init(keyPrefix: String = "tandem", logLength: Int = 10_000, maxOps: Int = 100, maxPatchBytes: Int = 256 << 10,
                    trustsPersistence: Bool = false) {
            self.keyPrefix = keyPrefix
            self.logLength = logLength
            self.maxOps = maxOps
            self.maxPatchBytes = maxPatchBytes
            self.trustsPersistence = trustsPersistence
        }
    }

    /// The connection to Redis (shared, pipelined).
    let client: RedisClient
    /// The limits applied.
    let settings: Settings
    private let random: any RandomByteSource

    /// A sequencer over `client`; `random` makes new epochs.
    init(client: RedisClient, settings: Settings = Settings(), random: any RandomByteSource = SecureRandom()) {
        self.client = client
        self.settings = settings
        self.random = random
    }

    /// The four keys of `room`, in the order the scripts expect.
    func keys(room: String) -> [String] {
        ["meta", "clients", "log", "snapshot"].map { "\(settings.keyPrefix):{\(room)}:\($0)" }
    }

    /// The room's epoch and rev, creating the room (with a new random epoch) when Redis has no trace of it.
    /// - Throws: `RedisError`.
    func open(room: String) async throws(RedisError) -> RoomHead {
        let reply = try await client.evaluate(RoomSequencerScripts.open, keys: keys(room: room), arguments: [RedisArgument(newEpoch()), trusted])
        guard let fields = reply.array, fields.count == 3, let epoch = fields[0].string, let rev = fields[1].integer, let origin = fields[2].integer else {
            throw .unexpectedReply(command: "open room script", reply: "\(reply)")
        }
        return RoomHead(epoch: epoch, rev: rev, created: origin == 1, rotated: origin == 2)
    }

    /// The key of the room's signal stream (ephemeral messages between nodes; not one of the scripts' keys).
    func signalKey(room: String) -> String {
        "\(settings.keyPrefix):{\(room)}:signals"
    }

    /// Publishes an ephemeral message to the room's signal stream, for every node following the room.
    /// The stream keeps about the newest 1,000 and disappears an hour after the last one.
    /// - Throws: `RedisError`.
    func publish(room: String, _ signal: RoomSignal) async throws(RedisError) {
        let key = RedisArgument(signalKey(room: room))
        let replies = try await client.pipeline([
            ["XADD", key, "MAXLEN", "~", "1000", "*", "node", RedisArgument(signal.node), "data", RedisArgument(bytes: signal.payload)],
            ["PEXPIRE", key, "3600000"],
        ])
        for reply in replies { _ = try reply.get() }
    }

    /// Sequences one patch of `client` (author `user`) with its `seq` and `ops` (a JSON array).
    /// - Parameter baseRev: when given, the patch is appended only if the room's rev is still this one
    ///   (the node validated it against that state); otherwise the outcome is `.behind`.
    /// - Throws: `RedisError`; `.connectionLost` means the patch may or may not have been appended, and
    ///   resubmitting the same seq is safe (exactly-once).
    /// - Parameter localRejection: the node's reason why the patch is invalid against its replica at
    ///   `baseRev`; the script then answers `duplicate`, `behind` or `rejected` with that reason, never `applied`.
    func append(room: String, client clientID: String, user: String, seq: Int64, ops: [UInt8], baseRev: Int64? = nil,
                       localRejection: String? = nil) async throws(RedisError) -> SequencerOutcome {
        let arguments: [RedisArgument] = [
            RedisArgument(newEpoch()), RedisArgument(clientID), RedisArgument(user), RedisArgument(seq), RedisArgument(bytes: ops),
            RedisArgument(baseRev ?? -1), RedisArgument(Int64(settings.maxOps)), RedisArgument(Int64(settings.maxPatchBytes)),
            RedisArgument(Int64(settings.logLength)), trusted, RedisArgument(localRejection ?? ""),
        ]
        let reply = try await client.evaluate(RoomSequencerScripts.append, keys: keys(room: room), arguments: arguments)
        guard let fields = reply.array, fields.count == 5, let status = fields[0].string, let epoch = fields[1].string, let rev = fields[2].integer else {
            throw .unexpectedReply(command: "append patch script", reply: "\(reply)")
        }
        switch status {
        case "applied": return .applied(epoch: epoch, rev: rev)
        case "duplicate": return .duplicate(epoch: epoch, rev: rev)
        case "behind": return .behind(epoch: epoch, rev: rev)
        case "rejected": return .rejected(epoch: epoch, reason: fields[4].string ?? "")
        case "lost": return .lost
        default: throw .unexpectedReply(command: "append patch script", reply: "\(reply)")
        }
    }

    /// Up to `limit` logged patches with rev > `after`, in rev order. When the first returned rev is
    /// not `after + 1`, the missed patches have left the log: the reader needs a snapshot instead.
    /// - Throws: `RedisError`.
    func patches(room: String, after: Int64, limit: Int = 1_000) async throws(RedisError) -> [SequencedPatch] {
        let reply = try await client.send(["XRANGE", RedisArgument(keys(room: room)[2]), RedisArgument("\(after + 1)-0"), "+", "COUNT", RedisArgument(Int64(limit))])
        guard let entries = reply.array else { throw .unexpectedReply(command: "XRANGE", reply: "\(reply)") }
        var patches: [SequencedPatch] = []
        patches.reserveCapacity(entries.count)
        for entry in entries {
            guard let patch = Self.patch(from: entry) else { throw .unexpectedReply(command: "XRANGE", reply: "\(entry)") }
            patches.append(patch)
        }
        return patches
    }

    /// Brings back a room that Redis lost from a node's copy of it: if (and only if) the room does not
    /// exist, creates it in a new epoch at rev 0 with `state` as its snapshot and each client's last seq.
    /// - Returns: whether it seeded (false: the room exists; someone else seeded or created it first).
    /// - Throws: `RedisError`.
    @discardableResult
    func seed(room: String, state: [UInt8], lastSeqs: [String: Int64]) async throws(RedisError) -> Bool {
        var arguments: [RedisArgument] = [RedisArgument(newEpoch()), trusted, RedisArgument(bytes: state)]
        for (client, seq) in lastSeqs.sorted(by: { $0.key < $1.key }) {
            arguments.append(RedisArgument(client))
            arguments.append(RedisArgument(seq))
        }
        return try await client.evaluate(RoomSequencerScripts.seed, keys: keys(room: room), arguments: arguments).integer == 1
    }

    /// Stores `snapshot` if it belongs to the room's current epoch and is newer than the stored one.
    /// - Returns: whether it was stored.
    /// - Throws: `RedisError`.
    @discardableResult
    func storeSnapshot(room: String, _ snapshot: RoomSnapshot) async throws(RedisError) -> Bool {
        let reply = try await client.evaluate(RoomSequencerScripts.storeSnapshot, keys: keys(room: room),
                                              arguments: [RedisArgument(snapshot.epoch), RedisArgument(snapshot.rev), RedisArgument(bytes: snapshot.state)])
        return reply.integer == 1
    }

    /// The stored snapshot of the room, if any.
    /// - Throws: `RedisError`.
    func snapshot(room: String) async throws(RedisError) -> RoomSnapshot? {
        let reply = try await client.send(["HMGET", RedisArgument(keys(room: room)[3]), "epoch", "rev", "state"])
        guard let fields = reply.array, fields.count == 3 else { throw .unexpectedReply(command: "HMGET", reply: "\(reply)") }
        guard let epoch = fields[0].string, let rev = fields[1].integer, case .bulkString(let state) = fields[2] else { return nil }
        return RoomSnapshot(epoch: epoch, rev: rev, state: state)
    }

    /// Every client's exactly-once progress in the room: client id → its last applied seq and that seq's rev.
    /// The read is not tied to any rev: a caller holding the room at rev r must ignore entries with a
    /// later rev (their patches reach it through the log).
    /// - Throws: `RedisError`.
    func clientProgress(room: String) async throws(RedisError) -> [String: (lastSeq: Int64, lastRev: Int64)] {
        let reply = try await client.send(["HGETALL", RedisArgument(keys(room: room)[1])])
        guard let fields = reply.array, fields.count % 2 == 0 else { throw .unexpectedReply(command: "HGETALL", reply: "\(reply)") }
        var progress: [String: (lastSeq: Int64, lastRev: Int64)] = [:]
        for index in stride(from: 0, to: fields.count, by: 2) {
            guard let client = fields[index].string, let value = fields[index + 1].string else { continue }
            let parts = value.split(separator: ":")
            guard parts.count == 2, let seq = Int64(parts[0]), let rev = Int64(parts[1]) else {
                throw .unexpectedReply(command: "HGETALL", reply: "\(fields[index + 1])")
            }
            progress[client] = (seq, rev)
        }
        return progress
    }

    /// Decodes one stream entry `[id, [field, value, …]]`.
    static func patch(from entry: RESPValue) -> SequencedPatch? {
        guard let parts = entry.array, parts.count == 2, let id = parts[0].string, let fields = parts[1].array,
              let rev = Int64(id.prefix { $0 != "-" }) else { return nil }
        var epoch: String?, user: String?, client: String?, seq: Int64?, ops: [UInt8]?
        for index in stride(from: 0, to: fields.count - 1, by: 2) {
            switch fields[index].string {
            case "epoch": epoch = fields[index + 1].string
            case "user": user = fields[index + 1].string
            case "client": client = fields[index + 1].string
            case "seq": seq = fields[index + 1].integer
            case "ops": if case .bulkString(let bytes) = fields[index + 1] { ops = bytes }
            default: break
            }
        }
        guard let epoch, let user, let client, let seq, let ops else { return nil }
        return SequencedPatch(epoch: epoch, rev: rev, user: user, client: client, seq: seq, ops: ops)
    }

    private var trusted: RedisArgument { settings.trustsPersistence ? "1" : "0" }

    /// 16 random bytes in hex: a new epoch candidate (used only when the room has to be created).
    private func newEpoch() -> String {
        random.bytes(count: 16).map { byte in byte < 16 ? "0" + String(byte, radix: 16) : String(byte, radix: 16) }.joined()
    }
}
