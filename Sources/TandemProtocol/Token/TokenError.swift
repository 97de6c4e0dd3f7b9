/// Why a token was refused. The server closes with 4001 for every case.
public enum TokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The token is not a well-formed compact JWS; `reason` says which part is wrong.
    case malformed(String)
    /// The header's `alg` is not `HS256` (`none` included).
    case unsupportedAlgorithm(String)
    /// The signature does not match (wrong secret, or the token was altered).
    case badSignature
    /// The token expired at `exp`; it was presented at `now` (unix seconds).
    case expired(exp: Int64, now: Int64)
    /// The token's `nbf` lies ahead: it may not be used before then (unix seconds).
    case notYetValid(nbf: Int64, now: Int64)
    /// A claim is missing or has an invalid value.
    case invalidClaim(String, reason: String)

    /// A message a user can act on.
    public var description: String {
        switch self {
        case .malformed(let reason): "malformed token: \(reason)"
        case .unsupportedAlgorithm(let alg): "token algorithm \"\(alg)\" is not accepted; only HS256 is"
        case .badSignature: "token signature does not match (wrong secret or altered token)"
        case .expired(let exp, let now): "token expired \(now - exp) s ago (exp \(exp)); request a new one"
        case .notYetValid(let nbf, let now): "token is not valid for another \(nbf - now) s (nbf \(nbf)); check the clocks of the issuer and the server"
        case .invalidClaim(let claim, let reason): "token claim \"\(claim)\" \(reason)"
        }
    }
}
