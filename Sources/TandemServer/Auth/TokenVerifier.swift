import TandemProtocol

/// Checks the tokens presented in `hello`, `refresh` and the HTTP API: HS256 with the server's secret, not
/// expired, and the deployment's `TokenRequirements`.
///
/// The HMAC and the wall clock are injected, so the rules are tested without real time and the
/// module's crypto stays behind one seam.
public struct TokenVerifier: Sendable {
    private let secret: [UInt8]
    private let hmac: @Sendable (_ key: [UInt8], _ message: [UInt8]) -> [UInt8]
    private let now: @Sendable () -> Int64
    private let requirements: TokenRequirements

    /// Creates a verifier; `now` returns unix seconds.
    public init(secret: [UInt8], hmac: @escaping @Sendable (_ key: [UInt8], _ message: [UInt8]) -> [UInt8],
                now: @escaping @Sendable () -> Int64, requirements: TokenRequirements = TokenRequirements()) {
        self.secret = secret
        self.hmac = hmac
        self.now = now
        self.requirements = requirements
    }

    /// The claims of a valid token.
    /// - Throws: `TokenError` for a malformed, wrongly signed, non-HS256, expired or not yet valid token, or one
    ///   the requirements refuse.
    public func verify(_ token: String) throws(TokenError) -> TokenClaims {
        try JWT.verify(token, now: now(), requirements: requirements, signer: { hmac(secret, $0) })
    }

    /// Mints a token with the same secret (for `tandem token` and the demo room's examples).
    public func mint(_ claims: TokenClaims) -> String {
        JWT.sign(claims, signer: { hmac(secret, $0) })
    }

    /// The HMAC of `message` under the server's secret, for values only this server can make and check
    /// (e.g. the invitation a guest's id comes from). Callers prefix `message` with their purpose, so that no
    /// value made for one use verifies for another.
    func authenticationCode(_ message: String) -> [UInt8] {
        hmac(secret, Array(message.utf8))
    }

    /// The current unix time as this verifier sees it.
    public var currentTime: Int64 { now() }
}
