import Foundation
import Testing
import TandemProtocol
import TandemServer
import TandemWire
@testable import TandemCLI

@Suite struct TokenCommandTests {
    private func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tandem-token-\(UUID().uuidString)").path
    }

    @Test func printsATokenTheServerAcceptsAndNothingElse() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (status, console) = await runTandem(["token", "--room", "lobby", "--user", "alice", "--role", "viewer", "--ttl", "60", "--name", "Alice", "--data", directory])
        #expect(status == ExitCode.success)
        #expect(console.stdout.count == 1)
        #expect(console.stderr.isEmpty)
        let secret = try ServerSecret.load(environment: [:], dataDirectory: directory)
        let verifier = TokenVerifier(secret: secret.key, hmac: { Digest.hmacSHA256(key: $0, message: $1) }, now: { Int64(Date().timeIntervalSince1970) })
        let claims = try verifier.verify(try #require(console.stdout.first))
        #expect(claims.sub == "alice")
        #expect(claims.room == "lobby")
        #expect(claims.role == .viewer)
        #expect(claims.name == "Alice")
        #expect(claims.exp - Int64(Date().timeIntervalSince1970) <= 60)
    }

    @Test func usesTANDEM_SECRETWhenSet() async throws {
        let (status, console) = await runTandem(["token", "--room", "r", "--user", "u", "--data", "/nonexistent"], environment: ["TANDEM_SECRET": "shared"])
        #expect(status == ExitCode.success)
        let verifier = TokenVerifier(secret: Array("shared".utf8), hmac: { Digest.hmacSHA256(key: $0, message: $1) }, now: { 0 })
        #expect(try verifier.verify(try #require(console.stdout.first)).role == .guest)
    }

    @Test func missingOrBadOptionsAreUsageErrors() async {
        let missing = await runTandem(["token", "--user", "u"])
        #expect(missing.status == ExitCode.usage)
        #expect(missing.console.stderr.first == "tandem token: error: missing required option '--room'")
        let badRole = await runTandem(["token", "--room", "r", "--user", "u", "--role", "admin"])
        #expect(badRole.status == ExitCode.usage)
        #expect(badRole.console.stderr.first?.contains("expected one of host, guest, viewer") == true)
        let badTTL = await runTandem(["token", "--room", "r", "--user", "u", "--ttl", "0"])
        #expect(badTTL.status == ExitCode.usage)
        // A room name the server would refuse is refused here, saying why.
        let decomposed = await runTandem(["token", "--room", "cafe\u{301}", "--user", "u"])
        #expect(decomposed.status == ExitCode.usage)
        #expect(decomposed.console.stderr.first?.contains("Normalization Form C") == true)
    }
}
