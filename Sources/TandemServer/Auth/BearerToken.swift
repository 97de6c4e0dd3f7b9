import TandemProtocol
import TandemWire

/// The `Authorization: Bearer <token>` of an API request, verified: what the invitation and rooms
/// APIs both start from.
enum BearerToken {
    /// The verified claims of `request`'s bearer token.
    /// - Throws: `.missingToken` without the header (or another scheme), `.badToken` when it fails verification.
    static func claims(of request: HTTPRequest, verifier: TokenVerifier) throws(InviteAPIError) -> TokenClaims {
        guard let header = request.headers["Authorization"] else { throw .missingToken }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, HTTPHeadersText.lowercasedASCII(String(parts[0])) == "bearer" else { throw .missingToken }
        do {
            return try verifier.verify(String(parts[1]).trimmingSpaces())
        } catch {
            throw .badToken(error.description)
        }
    }

    /// The verified claims of `request`'s bearer token, once `access` allows them `action` in `room`: the
    /// check every request of the HTTP API that acts on a room passes.
    /// - Parameter room: the room the request addresses; nil for one that acts on the token's own room.
    /// - Throws: `.missingToken` / `.badToken` for the token, `.badRoomName` for a room no token can name,
    ///   `.denied` when `access` refuses.
    static func authorize(_ request: HTTPRequest, verifier: TokenVerifier, access: RoomAccess, _ action: RoomAccess.Action,
                          room: String?) throws(InviteAPIError) -> TokenClaims {
        let claims = try claims(of: request, verifier: verifier)
        if let room {
            do throws(RoomNameError) {
                try RoomName.check(room)
            } catch {
                throw .badRoomName(error)
            }
        }
        do throws(RoomAccess.Denial) {
            try access.check(claims, action, room: room ?? claims.room)
        } catch {
            throw .denied(error)
        }
        return claims
    }
}
