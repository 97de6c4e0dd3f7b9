import TandemProtocol

/// A `RoomStore` that keeps everything in memory: for tests, and for measuring what durability
/// costs. Nothing survives the process.
public final class InMemoryRoomStore: RoomStore {
    private struct Room {
        var epoch: String
        var rev: Int64
        var snapshot: [UInt8]
        var snapshotRev: Int64
        var patches: [StoredPatch]
        var clients: [Peer: ClientProgress]
        var forgotClients = false
        /// Every kept snapshot, oldest first (the latest is `snapshot`).
        var snapshots: [StoredSnapshot] = []
    }

    private var rooms: [String: Room] = [:]
    private var storedInvites: [String: StoredInvite] = [:]
    private var storedDenials: [RoomUser: StoredDenial] = [:]

    private struct RoomUser: Hashable {
        var room: String
        var user: String
    }

    /// Creates an empty store.
    public init() {}

    /// See `RoomStore.loadRoom(_:)`.
    public func loadRoom(_ room: String) throws(StorageError) -> RoomRecord? {
        guard let stored = rooms[room] else { return nil }
        return RoomRecord(
            room: room, epoch: stored.epoch, rev: stored.rev, snapshot: stored.snapshot, snapshotRev: stored.snapshotRev,
            patchesAfterSnapshot: stored.patches.filter { $0.rev > stored.snapshotRev },
            clients: stored.clients, oldestRev: stored.patches.first?.rev ?? stored.rev + 1, forgotClients: stored.forgotClients
        )
    }

    /// See `RoomStore.apply(_:)`. Every write is checked before anything changes, so a failing
    /// call leaves the store as it was; then the writes mutate in place (no copy of the history).
    public func apply(_ writes: [StorageWrite]) throws(StorageError) {
        // Whether each room the writes name exists at that point of the batch (nil: as stored).
        var exists: [String: Bool] = [:]
        func require(_ room: String) throws(StorageError) {
            guard exists[room] ?? (rooms[room] != nil) else { throw .unknownRoom(room) }
        }
        for write in writes {
            switch write {
            case .createRoom(let room, _, _): exists[room] = true
            case .appendPatch(let patch): try require(patch.room)
            case .snapshot(let room, _, _, _), .forgetClients(let room, _), .expireHistory(let room, _, _): try require(room)
            case .saveInvite, .deleteInvite, .saveDenial, .deleteDenial: break
            case .deleteRoom(let room): exists[room] = false
            }
        }
        for write in writes {
            switch write {
            case .createRoom(let room, let epoch, let snapshot):
                rooms[room] = Room(epoch: epoch, rev: 0, snapshot: snapshot, snapshotRev: 0, patches: [], clients: [:],
                                   snapshots: [StoredSnapshot(rev: 0, state: snapshot)])
            case .appendPatch(let patch):
                rooms[patch.room]!.patches.append(patch)
                rooms[patch.room]!.rev = patch.rev
                rooms[patch.room]!.clients[patch.author] = ClientProgress(lastSeq: patch.seq, lastRev: patch.rev, lastSeen: patch.time)
            case .snapshot(let room, let rev, let state, let keepFrom):
                rooms[room]!.snapshot = state
                rooms[room]!.snapshotRev = rev
                rooms[room]!.snapshots.removeAll { $0.rev == rev }
                rooms[room]!.snapshots.append(StoredSnapshot(rev: rev, state: state))
                rooms[room]!.snapshots.sort { $0.rev < $1.rev }
                trim(room, keepFrom: keepFrom)
            case .expireHistory(let room, let olderThan, let keepingFrom):
                let recent = rooms[room]!.patches.first { $0.time >= olderThan }?.rev ?? rooms[room]!.rev + 1
                trim(room, keepFrom: min(keepingFrom, recent))
            case .forgetClients(let room, let clients):
                for client in clients { rooms[room]!.clients.removeValue(forKey: client) }
                rooms[room]!.forgotClients = true
            case .deleteRoom(let room):
                rooms[room] = nil
            case .saveInvite(let invite):
                storedInvites[invite.code] = invite
            case .deleteInvite(let code):
                storedInvites[code] = nil
            case .saveDenial(let denial):
                storedDenials[RoomUser(room: denial.room, user: denial.user)] = denial
            case .deleteDenial(let room, let user):
                storedDenials[RoomUser(room: room, user: user)] = nil
            }
        }
    }

    /// See `RoomStore.patches(room:after:limit:)`.
    public func patches(room: String, after: Int64, limit: Int) throws(StorageError) -> [StoredPatch] {
        Array((rooms[room]?.patches ?? []).lazy.filter { $0.rev > after }.prefix(limit))
    }

    /// History is kept back to the newest snapshot before `keepFrom`: every state from it on rebuilds.
    private func trim(_ room: String, keepFrom: Int64) {
        let floor = rooms[room]!.snapshots.last { $0.rev < keepFrom }?.rev ?? 0
        rooms[room]!.patches.removeAll { $0.rev <= floor }
        rooms[room]!.snapshots.removeAll { $0.rev < floor }
    }

    /// See `RoomStore.head(of:)`.
    public func head(of room: String) throws(StorageError) -> StoredHead? {
        rooms[room].map { StoredHead(epoch: $0.epoch, rev: $0.rev, oldestRev: $0.patches.first?.rev ?? $0.rev + 1) }
    }

    /// See `RoomStore.snapshot(room:atOrBefore:)`.
    public func snapshot(room: String, atOrBefore rev: Int64) throws(StorageError) -> StoredSnapshot? {
        rooms[room]?.snapshots.last { $0.rev <= rev }
    }

    /// See `RoomStore.revision(room:author:seq:)`.
    public func revision(room: String, author: Peer, seq: Int64) throws(StorageError) -> Int64? {
        rooms[room]?.patches.first { $0.seq == seq && $0.author == author }?.rev
    }

    /// See `RoomStore.invites()`.
    public func invites() throws(StorageError) -> [StoredInvite] {
        storedInvites.values.sorted { $0.code < $1.code }
    }

    /// See `RoomStore.denials()`.
    public func denials() throws(StorageError) -> [StoredDenial] {
        storedDenials.values.sorted { ($0.room, $0.user) < ($1.room, $1.user) }
    }
}
