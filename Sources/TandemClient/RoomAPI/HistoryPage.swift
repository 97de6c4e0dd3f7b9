/// One page of a room's history, oldest first.
public struct HistoryPage: Sendable, Equatable {
    /// The history's identity: pages of another epoch belong to another history.
    public var epoch: String
    /// The patches, revs strictly increasing.
    public var patches: [RecordedPatch]
    /// The `after` of the next page; nil when this page reached the room's head.
    public var next: Int64?
}
