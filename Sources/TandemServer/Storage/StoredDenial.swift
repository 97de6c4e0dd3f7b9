/// A user a host removed from a room, refused there until `until` (unix seconds; `Int64.max` until a host readmits them).
public struct StoredDenial: Sendable, Equatable {
    /// The room.
    public var room: String
    /// The removed user id (token `sub`).
    public var user: String
    /// The first second at which the user may enter again.
    public var until: Int64

    /// Creates a deny entry.
    public init(room: String, user: String, until: Int64) {
        self.room = room
        self.user = user
        self.until = until
    }
}
