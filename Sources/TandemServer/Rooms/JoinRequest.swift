import TandemProtocol

/// A verified request to enter a room: who (from the token), and what the `hello` said.
struct JoinRequest: Sendable {
    /// User, client id and role.
    var identity: SessionIdentity
    /// Display name from the token, if any.
    var name: String?
    /// The token's expiry (unix seconds): the connection is closed then unless a `refresh` moves it.
    var tokenExpiry: Int64 = 0
    /// Initial presence data from `hello.presence`.
    var presence: JSONValue
    /// Where the client left off, from `hello.resume`.
    var resume: ResumePoint?
}
