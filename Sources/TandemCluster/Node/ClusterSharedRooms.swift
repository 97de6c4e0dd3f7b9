import TandemProtocol
import TandemRedis
import TandemServer

/// The rooms API of a cluster node: every read comes from Redis (the room's meta, log and snapshots, and
/// presence from every node), so each node answers for every room whether or not it serves it, and a
/// read never creates or opens a room.
struct ClusterSharedRooms: SharedRooms {
    let node: ClusterNode

    private var sequencer: RedisRoomSequencer { node.engine.sequencer }

    func room(_ room: String) async throws(SequencingError) -> Room.Snapshot? {
        guard let head = try await redis({ () throws(RedisError) in try await sequencer.head(room: room) }) else { return nil }
        guard case .state(_, let state) = try await state(room, at: head.rev, head: head) else {
            throw .historyLost("room '\(room)': the snapshots and log in Redis do not rebuild rev \(head.rev)")
        }
        let at = node.presence.now()
        let entries = try await redis({ () throws(RedisError) in try await node.presence.presence.live(room: room, now: at) })
        var participants: [String: Participant] = [:]
        for entry in entries {
            if case .join(let participant)? = try? ServerMessage.decode(entry.data) { participants[participant.client] = participant }
        }
        let oldest = try await oldestStoredRev(room, head: head.rev)
        return Room.Snapshot(epoch: head.epoch, rev: head.rev, state: state,
                             participants: participants.values.sorted { $0.client < $1.client }, oldestStoredRev: oldest)
    }

    func history(_ room: String, after: Int64, limit: Int) async throws(SequencingError) -> SharedHistory? {
        guard let head = try await redis({ () throws(RedisError) in try await sequencer.head(room: room) }) else { return nil }
        let oldest = try await oldestStoredRev(room, head: head.rev)
        guard after < head.rev, after + 1 >= oldest else {
            return SharedHistory(epoch: head.epoch, rev: head.rev, oldestStoredRev: oldest, patches: [])
        }
        let logged = try await redis({ () throws(RedisError) in
            try await sequencer.patches(room: room, after: after, limit: Int(min(Int64(limit), head.rev - after)))
        })
        let patches = logged.filter { $0.rev <= head.rev }.map {
            StoredPatch(room: room, rev: $0.rev, user: $0.user, client: $0.client, seq: $0.seq, ops: $0.ops, time: $0.time)
        }
        return SharedHistory(epoch: head.epoch, rev: head.rev, oldestStoredRev: oldest, patches: patches)
    }

    func state(_ room: String, at rev: Int64) async throws(SequencingError) -> SharedStateRead {
        guard let head = try await redis({ () throws(RedisError) in try await sequencer.head(room: room) }) else { return .unknownRoom }
        guard rev <= head.rev else { return .pastHead(head: head.rev) }
        return try await state(room, at: rev, head: head)
    }

    func delete(_ room: String) async throws(SequencingError) -> Bool {
        try await redis({ () throws(RedisError) in try await sequencer.delete(room: room) })
    }

    // MARK: - Internals

    /// The state at `rev` (≤ the head): the newest kept snapshot at or before it plus the logged patches
    /// after that snapshot; a room whose log still starts at rev 1 rebuilds from the empty document.
    private func state(_ room: String, at rev: Int64, head: (epoch: String, rev: Int64)) async throws(SequencingError) -> SharedStateRead {
        var base = try await redis({ () throws(RedisError) in try await sequencer.snapshot(room: room, atOrBefore: rev) })
        let oldestLogged = try await redis({ () throws(RedisError) in try await sequencer.oldestLoggedRev(room: room) })
        if base == nil, (oldestLogged ?? 1) == 1 { base = RoomSnapshot(epoch: head.epoch, rev: 0, state: Array("{}".utf8)) }
        guard let snapshot = base, rev == snapshot.rev || (oldestLogged.map { $0 <= snapshot.rev + 1 } ?? false) else {
            return .notRetained(oldest: try await oldestStoredRev(room, head: head.rev) - 1)
        }
        var document: Document
        do {
            guard let parsed = Document(try JSONValue.parseStored(snapshot.state)) else { throw SequencingError.historyLost("room '\(room)': the snapshot at rev \(snapshot.rev) is not an object") }
            document = parsed
        } catch let error as SequencingError {
            throw error
        } catch {
            throw .historyLost("room '\(room)': the snapshot at rev \(snapshot.rev) is unreadable (\(error))")
        }
        var at = snapshot.rev
        while at < rev {
            let batch = try await redis({ () throws(RedisError) in try await sequencer.patches(room: room, after: at, limit: Int(min(1_000, rev - at))) })
            guard batch.first?.rev == at + 1 else { return .notRetained(oldest: try await oldestStoredRev(room, head: head.rev) - 1) }
            for patch in batch where patch.rev <= rev {
                do {
                    try document.apply(try PatchOp.list(from: try JSONValue.parseStored(patch.ops)), limits: .unlimited)
                } catch {
                    throw .historyLost("room '\(room)': rev \(patch.rev) in the log does not apply (\(error))")
                }
                at = patch.rev
            }
        }
        return .state(epoch: head.epoch, document.root)
    }

    /// The oldest rev whose patch the log holds (head + 1 when it holds none).
    private func oldestStoredRev(_ room: String, head: Int64) async throws(SequencingError) -> Int64 {
        try await redis({ () throws(RedisError) in try await sequencer.oldestLoggedRev(room: room) }) ?? head + 1
    }

}

/// Runs a Redis call for the rooms API or removals, its failure reported as the server's `SequencingError`.
func redis<Value>(_ body: () async throws(RedisError) -> Value) async throws(SequencingError) -> Value {
    do {
        return try await body()
    } catch {
        throw .cluster("Redis: \(error.description)")
    }
}
