
/// What following a room's log produced.
enum RoomLogEvent: Sendable, Equatable {
    /// New patches of `room`, contiguous and continuing where the follower stood.
    case patches(room: String, [SequencedPatch])
    /// The follower can no longer continue `room` by replay and has stopped following it: Redis lost
    /// the room (its epoch is now `epoch`, nil when it has none yet), or the patches after the
    /// follower's rev have left the capped log. The node must reload a snapshot and follow again.
    case reset(room: String, epoch: String?, reason: RoomLogResetReason)
    /// Signals published to `room` since the last poll, in publishing order (any node's, the reader's own
    /// included). Ephemeral: a follower sees those published after it started following, not older ones.
    case signals(room: String, [RoomSignal])
}

/// Why a follower stopped following a room.
enum RoomLogResetReason: Sendable, Equatable {
    /// The room's epoch in Redis differs from the followed one (data loss, e.g. a restart without persistence).
    case epochChanged
    /// The next rev is no longer in the log (the follower fell further behind than the resume window).
    case outsideWindow
}
