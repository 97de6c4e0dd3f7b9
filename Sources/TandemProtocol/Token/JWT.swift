/// Compact JWS tokens signed with HMAC-SHA256 (`HS256`), the only algorithm Tandem accepts.
///
/// The HMAC itself is injected (`signer` maps the signing input to the 32-byte MAC) so this
/// module stays free of cryptographic code; the server passes its HMAC-SHA256 with the
/// room secret as key.
public enum JWT {
    /// Tokens longer than this are refused before any parsing.
    public static let maxLength = 8192

    /// Signs `claims`: header `{"alg":"HS256","typ":"JWT"}`, the claims as compact JSON with
    /// sorted keys, and `signer`'s MAC of `header.payload`, all base64url without padding.
    public static func sign(_ claims: TokenClaims, signer: (_ signingInput: [UInt8]) -> [UInt8]) -> String {
        let header = Base64URL.encode(#"{"alg":"HS256","typ":"JWT"}"#.utf8)
        let payload = Base64URL.encode(claims.jsonValue.serializedBytes())
        let signingInput = header + "." + payload
        return signingInput + "." + Base64URL.encode(signer(Array(signingInput.utf8)))
    }

    /// Verifies `token` and returns its claims.
    ///
    /// Checks, in order: three base64url parts; a JSON header whose `alg` is exactly `HS256`
    /// (`typ`, if present, must be `JWT`; a `crit` header is refused); the signature, compared
    /// in constant time; the claims; that `now` (unix seconds) is before `exp`; and `requirements`
    /// (`nbf` whenever present, `iss`, `aud` and the longest lifetime when required). The payload
    /// is parsed only after the signature matched.
    public static func verify(
        _ token: String, now: Int64, requirements: TokenRequirements = TokenRequirements(),
        signer: (_ signingInput: [UInt8]) -> [UInt8]
    ) throws(TokenError) -> TokenClaims {
        guard token.utf8.count <= maxLength else { throw .malformed("longer than \(maxLength) bytes") }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("a JWT has three dot-separated parts, this one has \(parts.count)") }

        let header = try decodeJSON(parts[0], part: "header")
        guard case .string(let alg)? = header["alg"] else { throw .malformed("the header has no \"alg\"") }
        guard alg == "HS256" else { throw .unsupportedAlgorithm(alg) }
        if let typ = header["typ"] {
            guard case .string(let text) = typ, text.uppercased() == "JWT" else {
                throw .malformed("the header's \"typ\" must be \"JWT\"")
            }
        }
        guard header["crit"] == nil else { throw .malformed("critical header extensions are not supported") }

        guard let signature = Base64URL.decode(Substring(parts[2])) else {
            throw .malformed("the signature is not unpadded base64url")
        }
        let signingInputLength = parts[0].count + 1 + parts[1].count
        let expected = signer(Array(token.utf8.prefix(signingInputLength)))
        guard ConstantTime.equals(signature, expected) else { throw .badSignature }

        let payload = try decodeJSON(parts[1], part: "payload")
        let claims = try TokenClaims(json: payload)
        guard now < claims.exp else { throw .expired(exp: claims.exp, now: now) }
        try requirements.check(payload, exp: claims.exp, now: now)
        return claims
    }

    /// The claims a token states, not verified: for a tool that needs to know which room a token
    /// names before asking the server (which verifies it). Never a basis for granting anything.
    public static func unverifiedClaims(_ token: String) throws(TokenError) -> TokenClaims {
        guard token.utf8.count <= maxLength else { throw .malformed("longer than \(maxLength) bytes") }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("a JWT has three dot-separated parts, this one has \(parts.count)") }
        return try TokenClaims(json: try decodeJSON(parts[1], part: "payload"))
    }

    private static func decodeJSON(_ part: Substring.UTF8View, part name: String) throws(TokenError) -> JSONValue {
        guard let bytes = Base64URL.decode(Substring(part)) else { throw .malformed("the \(name) is not unpadded base64url") }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes, maxDepth: 16)
        } catch {
            throw .malformed("the \(name) is not JSON (\(error.description))")
        }
        guard case .object = value else { throw .malformed("the \(name) is not a JSON object") }
        return value
    }
}
