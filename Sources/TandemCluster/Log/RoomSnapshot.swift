
/// A room's document as stored in Redis at one rev of one epoch.
struct RoomSnapshot: Sendable, Equatable {
    /// The epoch the snapshot belongs to.
    var epoch: String
    /// The rev whose patch is the last one folded into `state`.
    var rev: Int64
    /// The document, serialized JSON.
    var state: [UInt8]

    /// Creates a snapshot.
    init(epoch: String, rev: Int64, state: [UInt8]) {
        self.epoch = epoch
        self.rev = rev
        self.state = state
    }
}
