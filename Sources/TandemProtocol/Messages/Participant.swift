/// A participant as announced in `join` events and listed in `welcome.participants`.
public struct Participant: Sendable, Hashable {
    /// The user id (token `sub`).
    public var user: String
    /// The client id from `hello`.
    public var client: String
    /// The role granted by the token.
    public var role: Role
    /// The display name from the token's `name` claim, if it has one.
    public var name: String?
    /// The participant's presence data (an object; `{}` when none was sent).
    public var data: JSONValue

    /// Creates a participant.
    public init(user: String, client: String, role: Role, name: String? = nil, data: JSONValue = .emptyObject) {
        self.user = user
        self.client = client
        self.role = role
        self.name = name
        self.data = data
    }

    /// The participant's connection identity.
    public var peer: Peer { Peer(user: user, client: client) }

    /// The wire form, as in `join` and `welcome.participants`: `user`, `client`, `role`, `name` (when
    /// there is one) and `data`.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["user": .string(user), "client": .string(client), "role": .string(role.rawValue), "data": data]
        if let name { members["name"] = .string(name) }
        return .object(members)
    }

    /// Reads the wire form.
    /// - Throws: `MessageDecodingError` naming the missing or malformed field.
    public init(json: JSONValue) throws(MessageDecodingError) {
        guard case .object(let members) = json else { throw .notAnObject }
        try self.init(reading: FieldReader(members))
    }
}
