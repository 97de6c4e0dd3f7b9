/// The `hello` client message: the first message of every connection.
public struct Hello: Sendable, Hashable {
    /// The JWT that admits the client to a room.
    public var token: String
    /// The stable client id (survives reconnects; scopes `seq` and exactly-once delivery).
    public var client: String
    /// Where a reconnecting client left off; `nil` on a first connection.
    public var resume: ResumePoint?
    /// Presence data announced to the others in the `join` event (an object), if any.
    public var presence: JSONValue?

    /// Creates a hello.
    public init(token: String, client: String, resume: ResumePoint? = nil, presence: JSONValue? = nil) {
        self.token = token
        self.client = client
        self.resume = resume
        self.presence = presence
    }
}
