import TandemProtocol

/// What the rooms API reads and deletes when a room lives in a store several servers share (a
/// cluster's Redis) rather than in this server's: every node answers from it, whether or not it serves
/// the room. A server alone has none (`SequencingService.sharedRooms` is nil).
package protocol SharedRooms: Sendable {
    /// The room's head with its state and everyone present on any node; nil when there is no such room.
    func room(_ room: String) async throws(SequencingError) -> Room.Snapshot?

    /// The room's head and up to `limit` logged patches with rev > `after`; nil when there is no such room.
    func history(_ room: String, after: Int64, limit: Int) async throws(SequencingError) -> SharedHistory?

    /// The state right after `rev`.
    func state(_ room: String, at rev: Int64) async throws(SequencingError) -> SharedStateRead

    /// Deletes the room everywhere; the nodes that serve it close its connections with 4004. Returns
    /// whether there was a room.
    func delete(_ room: String) async throws(SequencingError) -> Bool
}

/// A page of a shared room's history.
package struct SharedHistory: Sendable {
    /// The room's epoch and head.
    package var epoch: String
    package var rev: Int64
    /// The oldest rev whose patch is still kept (rev + 1 when none is).
    package var oldestStoredRev: Int64
    /// The patches, in rev order.
    package var patches: [StoredPatch]

    package init(epoch: String, rev: Int64, oldestStoredRev: Int64, patches: [StoredPatch]) {
        self.epoch = epoch
        self.rev = rev
        self.oldestStoredRev = oldestStoredRev
        self.patches = patches
    }
}

/// What a shared room held right after a rev.
package enum SharedStateRead: Sendable {
    /// There is no such room.
    case unknownRoom
    /// The rev is past the room's head.
    case pastHead(head: Int64)
    /// The rev is older than what is kept; `oldest` is the oldest rev that can be rebuilt.
    case notRetained(oldest: Int64)
    /// The state at that rev, in `epoch`.
    case state(epoch: String, JSONValue)
}
