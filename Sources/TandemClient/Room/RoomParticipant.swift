import TandemProtocol

/// Someone in a `SharedRoom`, with their presence decoded to the app's type.
public struct RoomParticipant<Presence: Codable & Equatable & Sendable>: Sendable, Equatable, Identifiable {
    /// The user id and client id.
    public var peer: Peer
    /// The role the token granted.
    public var role: Role
    /// The display name from the token, if any.
    public var name: String?
    /// The presence the participant announced, or nil when it has none or it does not decode as `Presence`.
    public var presence: Presence?

    /// One entry per connection: the peer.
    public var id: Peer { peer }

    /// Creates a participant.
    public init(peer: Peer, role: Role, name: String? = nil, presence: Presence? = nil) {
        self.peer = peer
        self.role = role
        self.name = name
        self.presence = presence
    }
}
