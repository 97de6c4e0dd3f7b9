/// One invitation as stored: its code, the room and role it admits to, how long and how often.
///
/// A spent or revoked invitation stays stored until `expiresAt` plus the server's retention, so that a late
/// accept is told "gone" (410) rather than "unknown" (404).
public struct StoredInvite: Sendable, Equatable {
    /// The code (6 to 12 digits), unique among stored invitations.
    public var code: String
    /// The room it admits to (the creating host's room).
    public var room: String
    /// The role of the tokens it yields: `guest` or `viewer`.
    public var role: String
    /// The user id of the host who created it.
    public var createdBy: String
    /// When it was created, unix seconds.
    public var createdAt: Int64
    /// When it stops being accepted, unix seconds.
    public var expiresAt: Int64
    /// Accepts still allowed.
    public var usesLeft: Int
    /// Whether a host revoked it.
    public var revoked: Bool

    /// Creates a stored invitation.
    public init(code: String, room: String, role: String, createdBy: String, createdAt: Int64, expiresAt: Int64,
                usesLeft: Int, revoked: Bool = false) {
        self.code = code
        self.room = room
        self.role = role
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usesLeft = usesLeft
        self.revoked = revoked
    }
}
