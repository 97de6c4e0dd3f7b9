import Foundation
import Testing
import TandemTesting
import TandemServer
import TandemTestSupport
@testable import TandemClient

/// A token minted by a backend with a third-party JWT library (PyJWT, the guide's example) admits a
/// session with the identity its claims say.
@Suite struct BackendTokenTests {
    @Test func aTokenMintedWithPyJWTAdmitsASession() async throws {
        let harness = try SessionTestServer.start()
        let python = try PythonPeer(script: "mint_token.py", arguments: ["test", "u-42", "lobby", "guest", "Bob"])
        #expect(try await python.exitStatus(timeout: .seconds(30)) == 0, "\(python.stderr)")
        let token = python.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let session = SyncSession(url: harness.server.syncURL, clientID: "bob-phone", tokenProvider: { token },
                                  transport: WireTransport(group: harness.group))
        let events = StreamLog(session.events)
        await session.start()
        #expect(await session.waitUntilConnected(timeout: .seconds(10)))
        let me = events.all.lazy.compactMap { event -> Participant? in
            guard case .synchronized(_, _, _, let participants) = event else { return nil }
            return participants.first { $0.client == "bob-phone" }
        }.first
        #expect(me?.user == "u-42" && me?.role == .guest && me?.name == "Bob")
        await session.stop()
        await harness.shutdown()
    }
}
