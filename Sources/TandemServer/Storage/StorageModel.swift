import TandemProtocol

/// One applied patch as stored: its place in the room's order, its author, and its ops as the
/// compact JSON array bytes that go on the wire.
public struct StoredPatch: Sendable, Equatable {
    /// The room it belongs to.
    public var room: String
    /// The revision it produced (1 for the first patch of an epoch).
    public var rev: Int64
    /// The author's user id (token `sub`).
    public var user: String
    /// The author's client id.
    public var client: String
    /// The author's sequence number for this patch.
    public var seq: Int64
    /// The ops, as a compact JSON array.
    public var ops: [UInt8]
    /// The server's clock when the patch was applied, unix milliseconds (0: stored before times were kept).
    public var time: Int64

    /// Creates a stored patch.
    public init(room: String, rev: Int64, user: String, client: String, seq: Int64, ops: [UInt8], time: Int64 = 0) {
        self.room = room
        self.rev = rev
        self.user = user
        self.client = client
        self.seq = seq
        self.ops = ops
        self.time = time
    }

    /// The author: the user and its client id, whose progress the patch advances.
    public var author: Peer { Peer(user: user, client: client) }
}

/// How far one author (a user's client id) has got in one room: the last seq applied and the rev it produced.
public struct ClientProgress: Sendable, Equatable {
    /// Highest seq applied from this client id.
    public var lastSeq: Int64
    /// The rev at which that seq was applied.
    public var lastRev: Int64
    /// When the room last heard from this client id, unix milliseconds: its last applied patch, or the
    /// room's load for progress read back from storage (0: not known).
    public var lastSeen: Int64

    /// Creates progress.
    public init(lastSeq: Int64, lastRev: Int64, lastSeen: Int64 = 0) {
        self.lastSeq = lastSeq
        self.lastRev = lastRev
        self.lastSeen = lastSeen
    }
}

/// Everything needed to bring a room back into memory: its last snapshot, the patches after
/// it, and every client's progress.
public struct RoomRecord: Sendable, Equatable {
    /// The room's name.
    public var room: String
    /// The history's identity; unchanged for as long as the stored history is continuous.
    public var epoch: String
    /// The latest applied revision.
    public var rev: Int64
    /// The document at `snapshotRev`, as compact JSON.
    public var snapshot: [UInt8]
    /// The revision the snapshot reflects.
    public var snapshotRev: Int64
    /// Patches with rev > `snapshotRev`, in rev order, to replay onto the snapshot.
    public var patchesAfterSnapshot: [StoredPatch]
    /// Progress per author (user and client id).
    public var clients: [Peer: ClientProgress]
    /// The oldest rev whose patch is still stored (resume from `oldestRev - 1` or later replays).
    public var oldestRev: Int64
    /// Whether the room has forgotten the progress of any client id (`StorageWrite.forgetClients`).
    public var forgotClients: Bool

    /// Creates a record.
    public init(room: String, epoch: String, rev: Int64, snapshot: [UInt8], snapshotRev: Int64,
                patchesAfterSnapshot: [StoredPatch], clients: [Peer: ClientProgress], oldestRev: Int64, forgotClients: Bool = false) {
        self.room = room
        self.epoch = epoch
        self.rev = rev
        self.snapshot = snapshot
        self.snapshotRev = snapshotRev
        self.patchesAfterSnapshot = patchesAfterSnapshot
        self.clients = clients
        self.oldestRev = oldestRev
        self.forgotClients = forgotClients
    }
}

/// One change to storage. A list of writes is applied atomically, in order.
public enum StorageWrite: Sendable, Equatable {
    /// A new room (or a room whose history was lost) starts at rev 0 with this epoch and document.
    case createRoom(room: String, epoch: String, snapshot: [UInt8])
    /// An applied patch: appended to the history; the room's rev and the client's progress advance.
    case appendPatch(StoredPatch)
    /// The document at `rev`, kept with the room's earlier snapshots. History before `keepFrom` may go:
    /// the patches up to and the snapshots before the newest snapshot older than `keepFrom` are trimmed,
    /// so the state at every rev from that snapshot on stays rebuildable.
    case snapshot(room: String, rev: Int64, state: [UInt8], keepFrom: Int64)
    /// Creates or replaces the invitation with this code.
    case saveInvite(StoredInvite)
    /// Forgets an invitation (past its retention).
    case deleteInvite(code: String)
    /// Creates or replaces the deny entry of this room and user.
    case saveDenial(StoredDenial)
    /// Forgets a deny entry (expired).
    case deleteDenial(room: String, user: String)
    /// The room forgot these authors' progress (exactly-once memory is bounded); it remembers that it did.
    case forgetClients(room: String, clients: [Peer])
    /// History committed before `olderThan` (unix ms) may go, but none from rev `keepingFrom` on (the
    /// resume window): trimmed like a snapshot's `keepFrom`, back to the newest snapshot before the
    /// first patch kept.
    case expireHistory(room: String, olderThan: Int64, keepingFrom: Int64)
    /// The room is gone: its snapshot, history and client progress (a later `createRoom` starts anew).
    /// Its invitations and deny entries stay until they expire. Nothing when the room is not stored.
    case deleteRoom(room: String)
}

/// Why storage failed, in words an operator can act on.
public enum StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The database reported an error.
    case database(SQLiteError)
    /// A write referred to a room that storage does not have.
    case unknownRoom(String)
    /// The commit queue has shut down; nothing more is written.
    case shutDown
    /// Cluster mode: Redis could not open the room (the message says why).
    case cluster(String)
    /// The journal in front of the database could not be written or read back (the message says which file and why).
    case journal(String)

    /// A readable description.
    public var description: String {
        switch self {
        case .database(let error): "storage: \(error)"
        case .unknownRoom(let room): "storage: no room named '\(room)' is stored"
        case .shutDown: "storage: the commit queue is shut down"
        case .cluster(let reason): "cluster: \(reason)"
        case .journal(let reason): "storage journal: \(reason)"
        }
    }
}
