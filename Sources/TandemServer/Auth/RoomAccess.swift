import TandemProtocol

/// Who may do what in a room: the one decision that the socket (`hello`), the rooms API, the invitation
/// API and host control all ask, alone and in cluster mode, on every request.
///
/// The rule, in order:
/// 1. The token must be for the room (or a backend's, `room` "*"): otherwise nothing is said about the room.
/// 2. A backend's token never joins over the socket and never makes or lists invitations (an invitation
///    would hand an anonymous guest a token for one room made from a token for every room).
/// 3. A user a host removed from the room is refused every action there until a host readmits them.
///    Backend tokens are the deployment's own and are never removed.
/// 4. The role decides the rest: anyone joins and reads; hosts and guests write; hosts delete the room,
///    manage invitations and remove or readmit participants.
struct RoomAccess: Sendable {
    /// What a token asks to do in a room.
    enum Action: String, Sendable, CaseIterable {
        /// Enter over `/v1/sync`.
        case join
        /// Read the room, its history or its state at a rev.
        case read
        /// Write through the rooms API (a socket's patches are the `join` of a role that writes).
        case write
        /// Delete the room.
        case delete
        /// Create, list or revoke invitations.
        case invite
        /// Remove a participant, or readmit one.
        case moderate
    }

    /// Why an action is refused.
    enum Denial: Error, Sendable, Equatable, CustomStringConvertible {
        /// The token is for another room.
        case otherRoom(String)
        /// A backend's token may not do this.
        case backendToken(Action)
        /// The role may not do this.
        case role(Role, Action)
        /// A host removed the token's user from the room.
        case removed(room: String)

        /// What the refused party can do about it.
        var description: String {
            switch self {
            case .otherRoom(let room): "the token is not for room '\(room)'"
            case .backendToken(.join):
                "a backend token (room \"*\") acts on rooms over the HTTP API only; join with a token for one room"
            case .backendToken:
                "a backend token (room \"*\") cannot make or list invitations; use a host's token for the room"
            case .role(let role, .write): "a \(role.rawValue) may read the room but not change it; use a host's or a guest's token"
            case .role(let role, _): "only a host may do this; this token's role is \(role.rawValue)"
            case .removed(let room): "a host removed you from room '\(room)'; a host must readmit you before you can come back"
            }
        }
    }

    /// The users hosts removed, per room.
    let removals: DenyList
    /// Unix seconds.
    let now: @Sendable () -> Int64

    /// Whether `claims` may do `action` in `room`.
    /// - Throws: the first `Denial` of the rule that applies.
    func check(_ claims: TokenClaims, _ action: Action, room: String) throws(Denial) {
        guard claims.grants(room: room) else { throw .otherRoom(room) }
        if claims.isBackend {
            if action == .join || action == .invite { throw .backendToken(action) }
        } else if isRemoved(claims.sub, from: room) {
            throw .removed(room: room)
        }
        guard Self.allows(claims.role, action) else { throw .role(claims.role, action) }
    }

    /// Whether a host removed `user` from `room` (and did not readmit them).
    func isRemoved(_ user: String, from room: String) -> Bool {
        removals.deniedUntil(user, in: room, now: now()) != nil
    }

    /// What each role may do.
    static func allows(_ role: Role, _ action: Action) -> Bool {
        switch action {
        case .join, .read: true
        case .write: role.canPatch
        case .delete, .invite, .moderate: role == .host
        }
    }
}
