/// An ephemeral message one node published to a room's signal stream, for every other node to relay
/// to its own connections. Not part of the room's history: never replayed, lost when nobody listens.
struct RoomSignal: Sendable, Equatable {
    /// The node that published it (a node skips its own).
    var node: String
    /// The message as the publishing node encoded it.
    var payload: [UInt8]

    /// Creates a signal.
    init(node: String, payload: [UInt8]) {
        self.node = node
        self.payload = payload
    }
}
