import Testing
#if canImport(Glibc)
import Glibc
#endif
import TandemWire
import TandemProtocol
import TandemTestSupport
@testable import TandemClient

/// The URLSession HTTP transport (the API clients' default on Apple platforms) on this platform's
/// FoundationNetworking: what it makes of an untrusted certificate, a bad URL and a server that is gone. The
/// calls themselves run against a real server in `RoomsClientTests` and `InviteClientTests`, on both kinds.
@Suite struct URLSessionHTTPTransportTests {
    @Test func aServerCertificateTheSystemDoesNotTrustIsATLSError() async throws {
        let certificates = try TestCertificates.forTests()
        let harness = try SessionTestServer.start {
            $0.tlsCertificatePath = certificates.serverChain
            $0.tlsKeyPath = certificates.serverKey
        }
        let client = RoomsClient(baseURL: "https://127.0.0.1:\(harness.server.port)", token: harness.token(user: "alice"),
                                 transport: URLSessionHTTPTransport())
        await #expect { _ = try await client.room("lobby") } throws: { error in
            if case RoomsClientError.tls(.untrustedCertificate) = error { true } else { false }
        }
        await harness.shutdown()
    }

    @Test func aURLThatIsNotHTTPAndAServerThatIsGoneAreTransportErrors() async throws {
        let transport = URLSessionHTTPTransport()
        await #expect { _ = try await transport.send(method: "GET", url: "ftp://127.0.0.1/v1/rooms/x", headers: [:], body: [], timeout: .seconds(5)) }
            throws: { error in
                if case HTTPAPIFailure.transport(let message) = error { message.contains("ftp://127.0.0.1") } else { false }
            }
        // A port held by a socket that does not listen: connecting is refused.
        let (port, reservation) = try LoopbackPort.reserve()
        defer { close(reservation) }
        let client = InviteClient(baseURL: "http://127.0.0.1:\(port)", transport: transport, timeout: .seconds(5))
        await #expect { _ = try await client.acceptInvite(code: "000001") } throws: { error in
            if case InviteError.transport = error { true } else { false }
        }
    }
}
