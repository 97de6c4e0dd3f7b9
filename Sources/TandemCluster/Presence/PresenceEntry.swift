import TandemProtocol

/// One participant announced by one node, with the moment its entry lapses unless refreshed.
struct PresenceEntry: Sendable, Equatable {
    /// The node the participant is connected to.
    var node: String
    /// The participant's key in the room (`key(of:)`).
    var key: String
    /// The presence payload, as the node stored it (e.g. the participant as JSON).
    var data: [UInt8]
    /// Milliseconds since 1970 (the nodes' wall clock) after which the entry no longer counts.
    var expiresAt: Int64

    /// Creates an entry.
    init(node: String, key: String, data: [UInt8], expiresAt: Int64) {
        self.node = node
        self.key = key
        self.data = data
        self.expiresAt = expiresAt
    }

    /// A participant's key (`RoomKeys.peerKey`): two users naming one client id are two entries.
    static func key(of peer: Peer) -> String { RoomKeys.peerKey(peer) }
}
