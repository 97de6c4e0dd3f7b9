
/// A room's document as stored in Redis at one rev of one epoch.
public struct RoomSnapshot: Sendable, Equatable {
    /// The epoch the snapshot belongs to.
    public var epoch: String
    /// The rev whose patch is the last one folded into `state`.
    public var rev: Int64
    /// The document, serialized JSON.
    public var state: [UInt8]

    /// Creates a snapshot.
    public init(epoch: String, rev: Int64, state: [UInt8]) {
        self.epoch = epoch
        self.rev = rev
        self.state = state
    }
}
