
/// A room's document as stored in Redis at one rev of one epoch.
package struct RoomSnapshot: Sendable, Equatable {
    /// The epoch the snapshot belongs to.
    package var epoch: String
    /// The rev whose patch is the last one folded into `state`.
    package var rev: Int64
    /// The document, serialized JSON.
    package var state: [UInt8]

    /// Creates a snapshot.
    package init(epoch: String, rev: Int64, state: [UInt8]) {
        self.epoch = epoch
        self.rev = rev
        self.state = state
    }
}
