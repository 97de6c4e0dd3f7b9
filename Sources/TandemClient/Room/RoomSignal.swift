import TandemProtocol

/// An ephemeral event another participant sent to the room (never stored).
public struct RoomSignal: Sendable, Hashable {
    /// Who sent it.
    public var from: Peer
    /// The event's name.
    public var event: String
    /// Its data.
    public var data: JSONValue

    /// Creates a signal.
    public init(from: Peer, event: String, data: JSONValue) {
        self.from = from
        self.event = event
        self.data = data
    }
}
