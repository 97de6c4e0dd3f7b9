
/// Where a room stands in Redis: its epoch and latest rev.
package struct RoomHead: Sendable, Equatable {
    /// The room's epoch; a new one means the history was lost and clients need a snapshot.
    package var epoch: String
    /// The rev of the latest patch (0 for a new room).
    package var rev: Int64
    /// True when this call created the room (first use, or its keys were gone).
    package var created: Bool
    /// True when this call gave the room a new epoch because Redis restarted and its persistence is not
    /// trusted; the log and rev were kept (the document can still be rebuilt), but clients need a snapshot.
    package var rotated: Bool

    /// Creates a head.
    package init(epoch: String, rev: Int64, created: Bool, rotated: Bool = false) {
        self.epoch = epoch
        self.rev = rev
        self.created = created
        self.rotated = rotated
    }
}
