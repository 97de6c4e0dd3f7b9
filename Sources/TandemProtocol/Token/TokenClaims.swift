/// The claims of a Tandem access token: who (`sub`), where (`room`), with which `role`, until
/// when (`exp`, unix seconds), and an optional display `name`. Other claims are ignored.
public struct TokenClaims: Sendable, Hashable {
    /// The user id.
    public var sub: String
    /// The room the token admits to (a name `RoomName.check` accepts); `TokenClaims.anyRoom` for a
    /// backend's token.
    public var room: String
    /// The role in that room.
    public var role: Role
    /// Expiry as unix seconds; the token is refused from this second on.
    public var exp: Int64
    /// The display name shown to others in `join`, if any.
    public var name: String?

    /// The `room` of a backend's token: it acts on every room over the HTTP API, and joins none over
    /// `/v1/sync` (a participant belongs to one room).
    public static let anyRoom = "*"

    /// Whether this is a backend's token (`room` is `anyRoom`): trusted by the deployment, never a
    /// participant's.
    public var isBackend: Bool { room == Self.anyRoom }

    /// Whether the token acts on `room` (its own room, or any for a backend's token).
    public func grants(room name: String) -> Bool {
        room == name || room == Self.anyRoom
    }

    /// Creates claims.
    public init(sub: String, room: String, role: Role, exp: Int64, name: String? = nil) {
        self.sub = sub
        self.room = room
        self.role = role
        self.exp = exp
        self.name = name
    }

    /// The claims as a JSON object (`name` omitted when `nil`).
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "sub": .string(sub), "room": .string(room), "role": .string(role.rawValue), "exp": .number(Double(exp)),
        ]
        if let name { members["name"] = .string(name) }
        return .object(members)
    }

    /// Reads claims from a JWT payload object, checking each one's type.
    public init(json: JSONValue) throws(TokenError) {
        guard case .object(let members) = json else { throw .malformed("the payload is not a JSON object") }
        func text(_ key: String) throws(TokenError) -> String {
            guard case .string(let value)? = members[key], !value.isEmpty else {
                throw .invalidClaim(key, reason: "must be a non-empty string")
            }
            return value
        }
        sub = try text("sub")
        room = try text("room")
        if room != Self.anyRoom {
            do throws(RoomNameError) {
                try RoomName.check(room)
            } catch {
                throw .invalidClaim("room", reason: "is not a usable room name: \(error.description)")
            }
        }
        guard let role = Role(rawValue: try text("role")) else {
            throw .invalidClaim("role", reason: "must be \"host\", \"guest\" or \"viewer\"")
        }
        self.role = role
        guard case .number(let exp)? = members["exp"], exp.rounded(.towardZero) == exp,
            exp.magnitude < JSONWriter.exactIntegerLimit
        else {
            throw .invalidClaim("exp", reason: "must be an integer number of unix seconds")
        }
        self.exp = Int64(exp)
        switch members["name"] {
        case nil, .null?: name = nil
        case .string(let value)?: name = value
        default: throw .invalidClaim("name", reason: "must be a string")
        }
    }
}
