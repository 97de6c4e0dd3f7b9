import TandemProtocol

/// What a node's engine reports about an open room, in order, for the node to fan out.
enum ClusterRoomEvent: Sendable, Equatable {
    /// The replica folded this patch (any node's), the next rev: send it to the room's connections,
    /// or the ack to its author's connection, so every connection sees patches and acks in rev order.
    /// `event` is the patch as rooms send it, parsed once for the replica and the room.
    case folded(SequencedPatch, event: PatchEvent)
    /// The room was closed on this node (`reason` says why); its connections must reconnect, and get
    /// a snapshot when the epoch changed.
    case reset(reason: String)
    /// An ephemeral message some node published to the room (this node's own included).
    case signal(RoomSignal)
}
