import Foundation
import Testing
import TandemProtocol
import TandemWire

/// Digests, HMAC, secure random bytes and constant-time comparison against published vectors.
@Suite struct CryptoTests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    @Test func sha1MatchesFIPS180Vectors() {
        #expect(hex(Digest.sha1(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(Digest.sha1([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(hex(Digest.sha1(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }

    @Test func sha256MatchesFIPS180Vectors() {
        #expect(hex(Digest.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(Digest.sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(Digest.sha256([UInt8](repeating: 0x61, count: 1_000_000))) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func hmacSHA256MatchesRFC4231Vectors() {
        // Test case 1.
        #expect(hex(Digest.hmacSHA256(key: [UInt8](repeating: 0x0B, count: 20), message: Array("Hi There".utf8)))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        // Test case 2: a key shorter than the block.
        #expect(hex(Digest.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Test case 6: a key longer than the block is hashed first.
        #expect(hex(Digest.hmacSHA256(key: [UInt8](repeating: 0xAA, count: 131), message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func hmacWithEmptyKeyAndMessageIsTheKnownValue() {
        #expect(hex(Digest.hmacSHA256(key: [], message: [])) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func webSocketAcceptOfRFCSampleKey() {
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func secureRandomReturnsTheRequestedCountAndVaries() {
        #expect(SecureRandom.bytes(count: 0).isEmpty)
        #expect(SecureRandom().bytes(count: 33).count == 33)
        let first = SecureRandom.bytes(count: 32)
        let second = SecureRandom.bytes(count: 32)
        #expect(first != second)
        #expect(Set(first).count > 8, "32 random bytes with 8 or fewer distinct values is vanishingly unlikely")
    }

    @Test func constantTimeComparison() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([0, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2], [1, 2, 3]))
        #expect(ConstantTime.equals([UInt8](), []))
        #expect(ConstantTime.equals([9, 1, 2, 3].dropFirst(), [1, 2, 3]))
    }
}
