import TandemProtocol

/// The Redis keys of one room (`RoomSequencerScripts` says what each holds). The `{room}` hash tag
/// keeps them in one Redis Cluster slot, so every script on them stays legal on a sharded Redis.
package struct RoomKeys: Sendable, Equatable {
    /// Hash: epoch, rev, run, and each author's exactly-once progress (`progressField(author:)`).
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

    /// The hash field of an author's exactly-once progress in `meta`: `a:`, the user as `length:bytes`,
    /// then the client id, so that a client id counts only within its user's (two users naming one client
    /// id have two fields, and no user and client id pair spells another's). The prefix keeps them apart
    /// from the room's own fields. The append script builds the same field from a logged patch
    /// (`progressField` in its prelude); `RoomKeysTests` holds the two to the same vectors.
    static func progressField(author: Peer) -> String { "a:" + peerKey(author) }

    /// A user's client id as one string: the user as `length:bytes`, then the client id, so no two (user,
    /// client id) pairs spell the same key. Progress fields and presence entries both name peers by it.
    static func peerKey(_ peer: Peer) -> String { "\(peer.user.utf8.count):\(peer.user)\(peer.client)" }

    /// The author a progress field names, or nil for any other field of `meta`.
    static func author(ofProgressField name: String) -> Peer? {
        let bytes = Array(name.utf8)
        guard bytes.count > 2, bytes[0] == UInt8(ascii: "a"), bytes[1] == UInt8(ascii: ":"),
              let colon = bytes[2...].firstIndex(of: UInt8(ascii: ":")),
              let length = Int(String(decoding: bytes[2..<colon], as: UTF8.self)), length >= 0, colon + 1 + length <= bytes.count else { return nil }
        return Peer(user: String(decoding: bytes[(colon + 1)..<(colon + 1 + length)], as: UTF8.self),
                    client: String(decoding: bytes[(colon + 1 + length)...], as: UTF8.self))
    }

    /// The prefix of progress fields kept per bare client id by releases before progress belonged to a
    /// user's client id: their owner is not known, so they count as forgotten progress and are dropped.
    static let unownedProgressPrefix = "c:"
}
