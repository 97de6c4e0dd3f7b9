import Synchronization
import Testing
import TandemProtocol
import TandemServer
import TandemTestSupport
import TandemWire
@testable import TandemClient

/// A session over `wss://` to an in-process server that serves TLS, on the transport's own event loop, and
/// the failures that end a session at once instead of retrying forever.
@Suite struct SyncSessionTLSTests {
    private func certificates() throws -> TestCertificates { try TestCertificates.forTests() }

    private func secureServer() throws -> SessionTestServer {
        let certificates = try certificates()
        return try SessionTestServer.start {
            $0.tlsCertificatePath = certificates.serverChain
            $0.tlsKeyPath = certificates.serverKey
        }
    }

    private static let fastRetry = SyncSessionConfiguration(reconnect: ReconnectPolicy(backoff: Backoff(base: .seconds(0.01), cap: .seconds(0.02))))

    @Test func twoSessionsSyncOverWSSOnTheirOwnLoops() async throws {
        let harness = try secureServer()
        #expect(harness.server.syncURL.hasPrefix("wss://127.0.0.1:"))
        let trust = TLSConfiguration.client(additionalTrustRoots: [try certificates().caFile], trustsSystemRoots: false)
        let aliceToken = harness.token(user: "alice")
        let bobToken = harness.token(user: "bob")
        // No event-loop group in sight: each transport starts and stops its own loop.
        let alice = SyncSession(url: harness.server.syncURL, clientID: "a1", tokenProvider: { aliceToken },
                                configuration: Self.fastRetry, transport: WireTransport(tls: trust))
        let bob = SyncSession(url: harness.server.syncURL, clientID: "b1", tokenProvider: { bobToken },
                              configuration: Self.fastRetry, transport: WireTransport(tls: trust))
        await alice.start()
        await bob.start()
        #expect(await alice.waitUntilConnected(timeout: .seconds(10)))
        #expect(await bob.waitUntilConnected(timeout: .seconds(10)))
        try await alice.apply([Fixtures.set("/tab", 2)])
        #expect(await alice.drain(timeout: .seconds(10)))
        #expect(await eventually { await bob.snapshot.state == ["tab": 2] })
        await alice.stop()
        await bob.stop()
        await harness.shutdown()
    }

    @Test func anUntrustedCertificateEndsTheSessionAtTheFirstAttempt() async throws {
        let harness = try secureServer()
        let tokens = TokenCounter()
        let token = harness.token(user: "alice")
        // The system's trust store does not know the test CA.
        let session = SyncSession(url: harness.server.syncURL, clientID: "a1", tokenProvider: { tokens.increment(); return token },
                                  configuration: Self.fastRetry, transport: WireTransport(group: harness.group))
        let events = StreamLog(session.events)
        await session.start()
        #expect(await eventually { events.isFinished })
        guard case .closed(.transportFailed(.tls(.untrustedCertificate)))? = await session.state as ConnectionState? else {
            Issue.record("state \(await session.state)")
            return
        }
        #expect(tokens.value == 1, "no retry")
        #expect(events.all.contains { if case .attemptFailed(let reason) = $0 { reason.contains("not trusted") } else { false } })
        await harness.shutdown()
    }

    @Test(arguments: ["ftp://127.0.0.1:1/v1/sync", "ws://", "ws://host:99999/"])
    func aURLThatCannotWorkEndsTheSessionAtOnce(url: String) async throws {
        let session = SyncSession(url: url, clientID: "a1", tokenProvider: { "t" }, configuration: Self.fastRetry)
        await session.start()
        #expect(await eventually { if case .closed = await session.state { true } else { false } })
        guard case .closed(.transportFailed(.invalidURL))? = await session.state as ConnectionState? else {
            Issue.record("state \(await session.state)")
            return
        }
    }

    @Test func aPlainServerBehindAWSSURLIsNamedAndNotRetried() async throws {
        let harness = try SessionTestServer.start()
        let secureURL = "wss" + harness.server.syncURL.dropFirst(2)
        let session = SyncSession(url: secureURL, clientID: "a1", tokenProvider: { "t" }, configuration: Self.fastRetry,
                                  transport: WireTransport(group: harness.group))
        await session.start()
        #expect(await eventually { if case .closed = await session.state { true } else { false } })
        #expect(await session.state == .closed(.transportFailed(.tls(.notTLS(isServer: false)))))
        await harness.shutdown()
    }
}
