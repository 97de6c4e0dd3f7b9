import TandemRedis

/// Why the cluster engine could not serve a room.
enum ClusterError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The room is not open on this node.
    case roomNotOpen(String)
    /// The room's history broke continuity (epoch change, gap, a patch that would not fold): it was
    /// closed on this node; open it again, and give its clients a snapshot.
    case roomReset(String, reason: String)
    /// The patch was appended at `rev`, but in another epoch than this node's copy of the room, which
    /// was therefore reset (as for `roomReset`); the patch stays in the room's log.
    case appliedThenReset(String, rev: Int64)
    /// Redis failed (see the wrapped error).
    case redis(RedisError)
    /// The stored snapshot could not be read.
    case unreadableSnapshot(room: String, reason: String)

    /// What happened and what to do.
    var description: String {
        switch self {
        case .roomNotOpen(let room): "room '\(room)' is not open on this node; open it first"
        case .roomReset(let room, let reason): "room '\(room)' was reset (\(reason)); open it again and send clients a snapshot"
        case .appliedThenReset(let room, let rev): "room '\(room)' took the patch at rev \(rev) in a new epoch and was reset on this node"
        case .redis(let error): error.description
        case .unreadableSnapshot(let room, let reason): "the stored snapshot of room '\(room)' cannot be read: \(reason)"
        }
    }
}
