import TandemProtocol

/// Durable storage of rooms: snapshots, the patch history of the resume window, client progress, and the
/// rooms' invitations and deny entries.
///
/// A store is used by one thread at a time (the commit queue's), so implementations need no
/// locking of their own; `apply` must be atomic: all writes of a call, or none.
public protocol RoomStore: AnyObject {
    /// Loads a room, or returns `nil` when it was never stored.
    func loadRoom(_ room: String) throws(StorageError) -> RoomRecord?
    /// Applies writes atomically and durably, in order.
    func apply(_ writes: [StorageWrite]) throws(StorageError)
    /// Stored patches with `rev > after`, in order, at most `limit`.
    func patches(room: String, after: Int64, limit: Int) throws(StorageError) -> [StoredPatch]
    /// The room's epoch, rev and oldest stored rev, or `nil` when it was never stored: what a read of its
    /// history needs, without loading it.
    func head(of room: String) throws(StorageError) -> StoredHead?
    /// The newest stored snapshot of the room at or before `rev` (the state right after that rev), or
    /// nil when none is kept that early.
    func snapshot(room: String, atOrBefore rev: Int64) throws(StorageError) -> StoredSnapshot?
    /// The rev at which `author` first had `seq` applied, if that patch is still stored.
    func revision(room: String, author: Peer, seq: Int64) throws(StorageError) -> Int64?
    /// Every stored invitation, in code order.
    func invites() throws(StorageError) -> [StoredInvite]
    /// Every stored deny entry, ordered by room and user.
    func denials() throws(StorageError) -> [StoredDenial]
}

extension RoomStore {
    /// A store without a lighter read: from the loaded room.
    public func head(of room: String) throws(StorageError) -> StoredHead? {
        try loadRoom(room).map { StoredHead(epoch: $0.epoch, rev: $0.rev, oldestRev: $0.oldestRev) }
    }

    /// A store that keeps only the latest snapshot: that one, when it is at or before `rev`.
    public func snapshot(room: String, atOrBefore rev: Int64) throws(StorageError) -> StoredSnapshot? {
        guard let record = try loadRoom(room), record.snapshotRev <= rev else { return nil }
        return StoredSnapshot(rev: record.snapshotRev, state: record.snapshot)
    }
}

/// A room's document as stored at one rev.
public struct StoredSnapshot: Sendable, Equatable {
    /// The rev whose patch is the last one in `state`.
    public var rev: Int64
    /// The document as compact JSON.
    public var state: [UInt8]

    /// Creates a stored snapshot.
    public init(rev: Int64, state: [UInt8]) {
        self.rev = rev
        self.state = state
    }
}

/// Where a stored room's history stands.
public struct StoredHead: Sendable, Equatable {
    /// The history's identity.
    public var epoch: String
    /// The latest applied revision.
    public var rev: Int64
    /// The oldest rev whose patch is still stored (`rev + 1` when none is).
    public var oldestRev: Int64

    /// Creates a head.
    public init(epoch: String, rev: Int64, oldestRev: Int64) {
        self.epoch = epoch
        self.rev = rev
        self.oldestRev = oldestRev
    }
}
