/// One connection's identity in a room: the user (token `sub`) and the stable client id it
/// chose in `hello`. A user may have several clients (devices, tabs).
public struct Peer: Sendable, Hashable {
    /// The user id (the token's `sub` claim).
    public var user: String
    /// The client id from `hello`; survives reconnects.
    public var client: String

    /// Creates a peer.
    public init(user: String, client: String) {
        self.user = user
        self.client = client
    }
}
