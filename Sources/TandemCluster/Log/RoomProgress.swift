import TandemProtocol

/// What a room in Redis remembers of its authors for exactly-once (`RedisRoomSequencer.clientProgress`).
struct RoomProgress: Sendable {
    /// Author (user and client id) → its last applied seq and that seq's rev.
    var clients: [Peer: (lastSeq: Int64, lastRev: Int64)] = [:]
    /// The room dropped some client's progress (`RoomSequencerScripts.storeSnapshot` keeps it bounded):
    /// a client it does not know may have had patches applied.
    var forgot = false
}
