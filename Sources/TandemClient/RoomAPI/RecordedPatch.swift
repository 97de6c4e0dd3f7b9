import TandemProtocol

/// A patch as a room's history keeps it (`GET /v1/rooms/{room}/history`).
public struct RecordedPatch: Sendable, Equatable {
    /// The rev it was applied at.
    public var rev: Int64
    /// The server's clock when it was committed, unix milliseconds.
    public var time: Int64
    /// Its author (the token's `sub`).
    public var user: String
    /// The client id it came from (`http` for a write of the rooms API).
    public var client: String
    /// Its seq for that client id.
    public var seq: Int64
    /// The ops as applied.
    public var ops: [PatchOp]
}
