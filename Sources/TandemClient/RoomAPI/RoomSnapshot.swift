import TandemProtocol

/// A room as the rooms API shows it (`GET /v1/rooms/{room}`): its state at `rev`, every patch up to it
/// durable, and who is in it.
public struct RoomSnapshot: Sendable, Equatable {
    /// The room's name.
    public var room: String
    /// The history's identity (changes when the room starts anew).
    public var epoch: String
    /// The rev of `state`.
    public var rev: Int64
    /// The shared state (an object).
    public var state: JSONValue
    /// The participants, as in a `welcome`.
    public var participants: [Participant]
}
