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
    /// The rev at which `client` first had `seq` applied, if that patch is still stored.
    func revision(room: String, client: String, seq: Int64) throws(StorageError) -> Int64?
    /// Every stored invitation, in code order.
    func invites() throws(StorageError) -> [StoredInvite]
    /// Every stored deny entry, ordered by room and user.
    func denials() throws(StorageError) -> [StoredDenial]
}
