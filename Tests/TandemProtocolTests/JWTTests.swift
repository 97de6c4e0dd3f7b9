import Testing
import TandemProtocol

@Suite struct JWTTests {
    /// A deterministic stand-in for HMAC-SHA256: 32 bytes that depend on every input byte and
    /// on the key, so any change to the signing input or key changes the "MAC".
    static func fakeSigner(key: String) -> ([UInt8]) -> [UInt8] {
        { message in
            var state: [UInt8] = Array(repeating: 0, count: 32)
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in Array(key.utf8) + [0xFF] + message {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
                state[Int(hash % 32)] ^= UInt8(truncatingIfNeeded: hash >> 24)
            }
            for index in state.indices { state[index] ^= UInt8(truncatingIfNeeded: hash >> (index % 8 * 8)) }
            return state
        }
    }

    let signer = fakeSigner(key: "secret")
    let claims = TokenClaims(sub: "alice", room: "demo", role: .guest, exp: 2_000, name: "Alice")

    private func verifyError(_ token: String, now: Int64 = 1_000, signer: (([UInt8]) -> [UInt8])? = nil) -> TokenError? {
        do {
            _ = try JWT.verify(token, now: now, signer: signer ?? self.signer)
            return nil
        } catch {
            return error
        }
    }

    /// Builds a token from raw header and payload JSON, signed with the test signer.
    private func token(header: String, payload: String) -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        return input + "." + Base64URL.encode(signer(Array(input.utf8)))
    }

    @Test func signsAndVerifies() throws {
        let token = JWT.sign(claims, signer: signer)
        #expect(token.split(separator: ".").count == 3)
        #expect(!token.contains("="))
        #expect(try JWT.verify(token, now: 1_999, signer: signer) == claims)
        let anonymous = TokenClaims(sub: "bob", room: "r", role: .viewer, exp: 10)
        #expect(try JWT.verify(JWT.sign(anonymous, signer: signer), now: 0, signer: signer) == anonymous)
    }

    /// A token minted by Python's standard library (hmac + hashlib + json, sorted keys) with
    /// the secret below. The signer here answers with Python's HMAC-SHA256 only for the exact
    /// signing input, so verification proves the byte-exact signing input, and signing the
    /// same claims proves Tandem mints byte-identical tokens.
    @Test func interoperatesWithAnExternallyMintedToken() throws {
        let pythonToken = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE5MDAwMDAwMDAsIm5hbWUiOiJBbGljZSIsInJvbGUiOiJob3N0Iiwicm9vbSI6ImRlbW8iLCJzdWIiOiJhbGljZSJ9.fv6fahx237PYjPDW9QnFFn8wVyklpbnwJysOBYB89h8"
        let mac: [UInt8] = [126, 254, 159, 106, 28, 118, 223, 179, 216, 140, 240, 214, 245, 9, 197, 22,
                            127, 48, 87, 41, 37, 165, 185, 240, 39, 43, 14, 5, 128, 124, 246, 31]
        let signingInput = Array(pythonToken.split(separator: ".").prefix(2).joined(separator: ".").utf8)
        let recorded: ([UInt8]) -> [UInt8] = { $0 == signingInput ? mac : Array(repeating: 0, count: 32) }
        let expected = TokenClaims(sub: "alice", room: "demo", role: .host, exp: 1_900_000_000, name: "Alice")
        #expect(try JWT.verify(pythonToken, now: 1_800_000_000, signer: recorded) == expected)
        #expect(JWT.sign(expected, signer: recorded) == pythonToken)
    }

    @Test func refusesEveryAlgorithmButHS256() {
        let payload = #"{"sub":"a","room":"r","role":"host","exp":5000}"#
        #expect(verifyError(token(header: #"{"alg":"none","typ":"JWT"}"#, payload: payload)) == .unsupportedAlgorithm("none"))
        #expect(verifyError(token(header: #"{"alg":"HS512"}"#, payload: payload)) == .unsupportedAlgorithm("HS512"))
        #expect(verifyError(token(header: #"{"alg":"hs256"}"#, payload: payload)) == .unsupportedAlgorithm("hs256"))
        #expect(verifyError(token(header: #"{"typ":"JWT"}"#, payload: payload)) == .malformed("the header has no \"alg\""))
        // An unsigned token in the classic "alg: none" attack shape.
        let unsigned = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "."
        #expect(verifyError(unsigned) == .unsupportedAlgorithm("none"))
        // typ is optional, but when present must say JWT.
        #expect(verifyError(token(header: #"{"alg":"HS256"}"#, payload: payload)) == nil)
        #expect(verifyError(token(header: #"{"alg":"HS256","typ":"jwt"}"#, payload: payload)) == nil)
        #expect(verifyError(token(header: #"{"alg":"HS256","typ":"JOSE+JSON"}"#, payload: payload)) ==
            .malformed("the header's \"typ\" must be \"JWT\""))
        #expect(verifyError(token(header: #"{"alg":"HS256","crit":["exp"]}"#, payload: payload)) ==
            .malformed("critical header extensions are not supported"))
    }

    @Test func refusesBadSignatures() {
        let token = JWT.sign(claims, signer: signer)
        #expect(verifyError(token, signer: Self.fakeSigner(key: "other")) == .badSignature)
        // Alter the payload: sign for role guest, present role host.
        let parts = token.split(separator: ".").map(String.init)
        let forged = TokenClaims(sub: "alice", room: "demo", role: .host, exp: 2_000, name: "Alice")
        let forgedPayload = Base64URL.encode(forged.jsonValue.serializedBytes())
        #expect(verifyError(parts[0] + "." + forgedPayload + "." + parts[2]) == .badSignature)
        // A truncated signature.
        #expect(verifyError(parts[0] + "." + parts[1] + "." + parts[2].dropLast(3)) == .badSignature)
        #expect(verifyError(parts[0] + "." + parts[1] + ".") == .badSignature)
    }

    @Test func refusesExpiredTokens() {
        let token = JWT.sign(claims, signer: signer)
        #expect(verifyError(token, now: 1_999) == nil)
        #expect(verifyError(token, now: 2_000) == .expired(exp: 2_000, now: 2_000))
        #expect(verifyError(token, now: 2_600) == .expired(exp: 2_000, now: 2_600))
        #expect(TokenError.expired(exp: 2_000, now: 2_600).description == "token expired 600 s ago (exp 2000); request a new one")
    }

    @Test func refusesMalformedTokens() {
        #expect(verifyError("") == .malformed("a JWT has three dot-separated parts, this one has 1"))
        #expect(verifyError("a.b") == .malformed("a JWT has three dot-separated parts, this one has 2"))
        #expect(verifyError("a.b.c.d") == .malformed("a JWT has three dot-separated parts, this one has 4"))
        #expect(verifyError("!!!.e30.") == .malformed("the header is not unpadded base64url"))
        let header = Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8))
        #expect(verifyError(header + "=.e30.") == .malformed("the header is not unpadded base64url"))
        #expect(verifyError(Base64URL.encode(Array("not json".utf8)) + ".e30.")?.description.contains("the header is not JSON") == true)
        #expect(verifyError(Base64URL.encode(Array("[1]".utf8)) + ".e30.") == .malformed("the header is not a JSON object"))
        #expect(verifyError(String(repeating: "a", count: 9_000)) == .malformed("longer than 8192 bytes"))
        #expect(verifyError(token(header: #"{"alg":"HS256"}"#, payload: "[]")) == .malformed("the payload is not a JSON object"))
        let validStart = JWT.sign(claims, signer: signer).split(separator: ".")
        #expect(verifyError(validStart[0] + "." + validStart[1] + ".***") == .malformed("the signature is not unpadded base64url"))
    }

    @Test func checksClaims() {
        let header = #"{"alg":"HS256","typ":"JWT"}"#
        #expect(verifyError(token(header: header, payload: #"{"sub":"a","room":"r","role":"admin","exp":5000}"#)) ==
            .invalidClaim("role", reason: "must be \"host\", \"guest\" or \"viewer\""))
        #expect(verifyError(token(header: header, payload: #"{"room":"r","role":"host","exp":5000}"#)) ==
            .invalidClaim("sub", reason: "must be a non-empty string"))
        #expect(verifyError(token(header: header, payload: #"{"sub":"a","room":"","role":"host","exp":5000}"#)) ==
            .invalidClaim("room", reason: "must be a non-empty string"))
        #expect(verifyError(token(header: header, payload: #"{"sub":"a","room":"r","role":"host"}"#)) ==
            .invalidClaim("exp", reason: "must be an integer number of unix seconds"))
        #expect(verifyError(token(header: header, payload: #"{"sub":"a","room":"r","role":"host","exp":"5000"}"#)) ==
            .invalidClaim("exp", reason: "must be an integer number of unix seconds"))
        #expect(verifyError(token(header: header, payload: #"{"sub":"a","room":"r","role":"host","exp":5000.5}"#)) ==
            .invalidClaim("exp", reason: "must be an integer number of unix seconds"))
        #expect(verifyError(token(header: header, payload: #"{"sub":"a","room":"r","role":"host","exp":5000,"name":7}"#)) ==
            .invalidClaim("name", reason: "must be a string"))
    }

    @Test func ignoresUnknownClaims() throws {
        let payload = #"{"sub":"a","room":"r","role":"viewer","exp":5000,"iat":1,"iss":"tandem","aud":["x"]}"#
        let claims = try JWT.verify(token(header: #"{"alg":"HS256","kid":"k1"}"#, payload: payload), now: 1_000, signer: signer)
        #expect(claims == TokenClaims(sub: "a", room: "r", role: .viewer, exp: 5_000))
    }

    @Test func base64URLMatchesRFC4648Vectors() {
        let vectors = [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
        #expect(Base64URL.decode("Zg==") == nil)  // padding
        #expect(Base64URL.decode("+/+/") == nil)  // standard alphabet
        #expect(Base64URL.decode("Z") == nil)  // impossible length
        #expect(Base64URL.decode("Zh") == nil)  // non-zero unused bits: not canonical
        let all = (0...255).map(UInt8.init)
        #expect(Base64URL.decode(Base64URL.encode(all)) == all)
    }

    @Test func constantTimeComparisonComparesWholeArrays() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([0, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2], [1, 2, 3]))
        #expect(ConstantTime.equals([], []))
    }
}

/// The registered claims a deployment may require: `nbf` always, `iss`, `aud` and the longest lifetime on demand.
@Suite struct TokenRequirementsTests {
    private let signer: ([UInt8]) -> [UInt8] = { Array($0.suffix(32)) }

    private func token(_ extra: String) -> String {
        let header = Base64URL.encode(#"{"alg":"HS256"}"#.utf8)
        let payload = Base64URL.encode(#"{"sub":"a","room":"r","role":"host","exp":5000\#(extra)}"#.utf8)
        let input = header + "." + payload
        return input + "." + Base64URL.encode(signer(Array(input.utf8)))
    }

    @Test func notBeforeIsHonoured() throws {
        #expect(throws: TokenError.notYetValid(nbf: 1_500, now: 1_000)) { try JWT.verify(token(#","nbf":1500"#), now: 1_000, signer: signer) }
        _ = try JWT.verify(token(#","nbf":1000"#), now: 1_000, signer: signer)
        #expect(throws: TokenError.invalidClaim("nbf", reason: "must be an integer number of unix seconds")) {
            try JWT.verify(token(#","nbf":"soon""#), now: 1_000, signer: signer)
        }
    }

    @Test func issuerAudienceAndLifetimeAreCheckedWhenRequired() throws {
        let required = TokenRequirements(issuer: "https://auth.example", audience: "tandem", maxLifetimeSeconds: 3_600)
        _ = try JWT.verify(token(#","iss":"https://auth.example","aud":"tandem""#), now: 2_000, requirements: required, signer: signer)
        _ = try JWT.verify(token(#","iss":"https://auth.example","aud":["other","tandem"]"#), now: 2_000, requirements: required, signer: signer)
        #expect(throws: TokenError.invalidClaim("iss", reason: "must be \"https://auth.example\"")) {
            try JWT.verify(token(#","iss":"https://evil.example","aud":"tandem""#), now: 2_000, requirements: required, signer: signer)
        }
        #expect(throws: TokenError.invalidClaim("aud", reason: "must name \"tandem\"")) {
            try JWT.verify(token(#","iss":"https://auth.example","aud":["other"]"#), now: 2_000, requirements: required, signer: signer)
        }
        #expect(throws: TokenError.invalidClaim("aud", reason: "must name \"tandem\"")) {
            try JWT.verify(token(#","iss":"https://auth.example""#), now: 2_000, requirements: required, signer: signer)
        }
        #expect(throws: TokenError.invalidClaim("exp", reason: "lies 4000 s ahead; this server accepts at most 3600 s")) {
            try JWT.verify(token(#","iss":"https://auth.example","aud":"tandem""#), now: 1_000, requirements: required, signer: signer)
        }
        // Without requirements the same claims are not looked at.
        _ = try JWT.verify(token(#","iss":"anyone","aud":7"#), now: 1_000, signer: signer)
    }
}
