/// Who the server recognised this connection as (`welcome.you`).
public struct SessionIdentity: Sendable, Hashable {
    /// The user id (token `sub`).
    public var user: String
    /// The client id from `hello`.
    public var client: String
    /// The role granted by the token.
    public var role: Role

    /// Creates an identity.
    public init(user: String, client: String, role: Role) {
        self.user = user
        self.client = client
        self.role = role
    }

    /// The connection's identity in the room: its user and client id. Exactly-once progress, presence
    /// and acks belong to this pair, so one user's client id names nothing of another user's.
    public var peer: Peer { Peer(user: user, client: client) }
}
