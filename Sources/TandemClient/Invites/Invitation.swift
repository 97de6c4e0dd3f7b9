import TandemProtocol

/// A live invitation as the server reports it.
public struct Invitation: Sendable, Equatable {
    /// The code of digits (6 by default, up to 12) a guest types or opens.
    public var code: String
    /// The role of the tokens it yields.
    public var role: Role
    /// When it stops being accepted, unix seconds.
    public var expiresAt: Int64
    /// Accepts still allowed.
    public var usesLeft: Int
    /// The URL to send the guest (`…/#invite=CODE`); only in the answer to a create.
    public var url: String?

    /// Creates an invitation value.
    public init(code: String, role: Role, expiresAt: Int64, usesLeft: Int, url: String? = nil) {
        self.code = code
        self.role = role
        self.expiresAt = expiresAt
        self.usesLeft = usesLeft
        self.url = url
    }
}
