/// The Redis keys of one room (`RoomSequencerScripts` says what each holds). The `{room}` hash tag
/// keeps them in one Redis Cluster slot, so every script on them stays legal on a sharded Redis.
package struct RoomKeys: Sendable, Equatable {
    /// Hash: epoch, rev, run, and each client's exactly-once progress (`c:<client id>`).
    package let meta: String
    /// Stream: one entry per appended batch.
    package let log: String
    /// Hash: the newest snapshot (epoch, rev, state).
    package let snapshot: String
    /// Hash: rev → state, the snapshots the retained log rebuilds from.
    package let snapshots: String
    /// String: the epoch a backend deleted, while its marker lasts.
    package let deleted: String

    /// The keys of `room` under `prefix`.
    init(prefix: String, room: String) {
        meta = "\(prefix):{\(room)}:meta"
        log = "\(prefix):{\(room)}:log"
        snapshot = "\(prefix):{\(room)}:snapshot"
        snapshots = "\(prefix):{\(room)}:snapshots"
        deleted = "\(prefix):{\(room)}:deleted"
    }

    /// All of them, in the order the scripts take them.
    var all: [String] { [meta, log, snapshot, snapshots, deleted] }

    /// The hash field of a client's exactly-once progress in `meta` (the prefix keeps client ids apart
    /// from the room's own fields; the append script adds it itself where it matches a logged patch).
    static func progressField(client: String) -> String { "c:" + client }
}
