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
}
