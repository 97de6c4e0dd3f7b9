import TandemProtocol

/// What accepting an invitation yields: a token the server minted for the room and role, and who it names.
public struct AcceptedInvitation: Sendable, Equatable {
    /// The token to present in `hello`.
    public var token: String
    /// The room it admits to.
    public var room: String
    /// The role it grants.
    public var role: Role
    /// The user id the server gave the guest (the token's `sub`; a host removes a guest by it).
    public var user: String
    /// When the token expires, unix seconds.
    public var expiresAt: Int64

    /// Creates an accepted-invitation value.
    public init(token: String, room: String, role: Role, user: String, expiresAt: Int64) {
        self.token = token
        self.room = room
        self.role = role
        self.user = user
        self.expiresAt = expiresAt
    }

    /// A token provider for `SyncSession`: always this token. An invitation yields one token; once it expires
    /// the server refuses it (4001) and the guest needs a new invitation.
    public var tokenProvider: @Sendable () async throws -> String {
        let token = token
        return { token }
    }
}
