/// One connection's identity in a room: the user (token `sub`) and the stable client id it
/// chose in `hello`. A user may have several clients (devices, tabs). A client id counts only within
/// its user: two users naming the same client id are two peers, with their own progress.
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
