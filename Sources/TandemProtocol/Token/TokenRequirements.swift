/// What a deployment may require of every token beyond its signature and `exp`: who issued it (`iss`), whom
/// it is for (`aud`), and how far ahead its `exp` may lie. `nbf` is honoured whenever a token has one.
public struct TokenRequirements: Sendable, Hashable {
    /// The `iss` every token must name; nil accepts any (or none).
    public var issuer: String?
    /// The audience every token must name in `aud` (a string, or an array holding it); nil accepts any.
    public var audience: String?
    /// The most seconds a token's `exp` may lie ahead of the moment it is presented; nil has no bound.
    public var maxLifetimeSeconds: Int64?

    /// Requirements; none by default.
    public init(issuer: String? = nil, audience: String? = nil, maxLifetimeSeconds: Int64? = nil) {
        self.issuer = issuer
        self.audience = audience
        self.maxLifetimeSeconds = maxLifetimeSeconds
    }

    /// Checks the registered claims of `payload` (a JWT payload object) at `now` (unix seconds), for claims
    /// whose `exp` is `exp`.
    /// - Throws: `TokenError` naming the claim that fails.
    func check(_ payload: JSONValue, exp: Int64, now: Int64) throws(TokenError) {
        switch payload["nbf"] {
        case nil: break
        case .number(let nbf)? where nbf.rounded(.towardZero) == nbf && nbf.magnitude < JSONWriter.exactIntegerLimit:
            guard now >= Int64(nbf) else { throw .notYetValid(nbf: Int64(nbf), now: now) }
        default: throw .invalidClaim("nbf", reason: "must be an integer number of unix seconds")
        }
        if let issuer {
            guard case .string(let named)? = payload["iss"], named == issuer else {
                throw .invalidClaim("iss", reason: "must be \"\(issuer)\"")
            }
        }
        if let audience {
            let named: [JSONValue] = switch payload["aud"] {
            case .array(let items)?: items
            case let single?: [single]
            case nil: []
            }
            guard named.contains(.string(audience)) else { throw .invalidClaim("aud", reason: "must name \"\(audience)\"") }
        }
        if let maxLifetimeSeconds, exp - now > maxLifetimeSeconds {
            throw .invalidClaim("exp", reason: "lies \(exp - now) s ahead; this server accepts at most \(maxLifetimeSeconds) s")
        }
    }
}
