import Testing
@testable import TandemServer

/// The `Tandem-Signature` format held to a value computed elsewhere (Python's `hmac`), so a change to what is
/// signed (`t.` + body) fails here even when signing and verifying change together.
@Suite struct WebhookSignatureTests {
    static let body = Array(#"{"type":"room.changed","room":"lobby","rev":7}"#.utf8)
    static let secret = Array("whsec_known_answer".utf8)
    /// `hmac.new(b"whsec_known_answer", b"1733000000." + body, hashlib.sha256).hexdigest()`.
    static let knownTag = "86fb3f38c636707e79ac562ba41886e6c034826d5de82c7e1b662c9b19d7ccc1"

    @Test func theHeaderIsTheKnownAnswer() {
        #expect(WebhookSignature.sign(body: Self.body, timestamp: 1_733_000_000, secret: Self.secret) == "t=1733000000,v1=\(Self.knownTag)")
    }

    @Test func aReceiverAcceptsTheKnownAnswerAndNothingElse() {
        let header = "t=1733000000,v1=\(Self.knownTag)"
        #expect(WebhookSignature.verify(header, body: Self.body, secret: Self.secret, now: 1_733_000_100))
        // The body alone, without `t.`, is another tag.
        let bodyOnly = "c99da526312f5a39c4ea4bfc3da298461e0705b50ca3025c036afb429e2d706a"
        #expect(!WebhookSignature.verify("t=1733000000,v1=\(bodyOnly)", body: Self.body, secret: Self.secret, now: 1_733_000_100))
        #expect(!WebhookSignature.verify("t=1733000001,v1=\(Self.knownTag)", body: Self.body, secret: Self.secret, now: 1_733_000_100))
        #expect(!WebhookSignature.verify(header, body: Self.body, secret: Self.secret, now: 1_733_000_301), "older than the tolerance")
    }
}
