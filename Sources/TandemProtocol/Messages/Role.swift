/// A participant's role in a room, granted by the `role` claim of its token.
public enum Role: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Owns the session; may patch.
    case host
    /// A collaborator; may patch.
    case guest
    /// Follows along; may send presence and signals but not patch (`reject` code `forbidden`).
    case viewer

    /// Whether this role may change the shared document.
    public var canPatch: Bool { self != .viewer }

    /// The wire string.
    public var description: String { rawValue }
}
