import Foundation
import Testing
import TandemProtocol
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// `hstsMaxAge`: with TLS every HTTPS response — the page, the APIs, `/healthz`, errors — carries
/// `Strict-Transport-Security`; without the option none does; without TLS the server does not start.
@Suite struct StrictTransportSecurityTests {
    private func start(hsts: Int?) throws -> SyncServer {
        let certificates = try TestCertificates.forTests()
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.inMemoryStorage = true
        configuration.tlsCertificatePath = certificates.serverChain
        configuration.tlsKeyPath = certificates.serverKey
        configuration.hstsMaxAge = hsts.map { .seconds($0) }
        return try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "hsts"], logger: .discarding)
    }

    /// The status and the `Strict-Transport-Security` value (nil when absent) of each request, over HTTPS.
    private func answers(_ server: SyncServer) async throws -> [(String, Int, String?)] {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let tls = try TLSContext(.client(additionalTrustRoots: [TestCertificates.forTests().caFile], trustsSystemRoots: false))
        let host = server.tokens.mint(TokenClaims(sub: "alice", room: "lobby", role: .host, exp: server.tokens.currentTime + 600))
        let requests: [(String, String, HTTPHeaders)] = [
            ("GET", "/", [:]), ("GET", "/healthz", [:]), ("GET", "/metrics", [:]),
            ("GET", "/v1/rooms/lobby", ["Authorization": "Bearer \(host)"]), ("GET", "/v1/rooms/lobby", [:]),
            ("POST", "/v1/invites", ["Authorization": "Bearer \(host)"]), ("GET", "/nowhere", [:]),
        ]
        var answers: [(String, Int, String?)] = []
        for (method, path, headers) in requests {
            let response = try await HTTPClient.send(method: method, url: server.baseURL + path, headers: headers, timeout: .seconds(30),
                                                     tls: tls, on: group.next())
            answers.append(("\(method) \(path)", response.status, response.headers["Strict-Transport-Security"]))
        }
        return answers
    }

    @Test func everyHTTPSResponseCarriesTheHeader() async throws {
        let server = try start(hsts: 31_536_000)
        let answers = try await answers(server)
        await server.shutdown()
        // Successes and refusals alike: a 200, a 401, a 404.
        #expect(Set(answers.map(\.1)).isSuperset(of: [200, 401, 404]), "\(answers)")
        for (request, status, header) in answers {
            #expect(header == "max-age=31536000", "\(request) → \(status)")
        }
    }

    @Test func withoutTheOptionNoResponseCarriesIt() async throws {
        let server = try start(hsts: nil)
        let answers = try await answers(server)
        await server.shutdown()
        for (request, status, header) in answers {
            #expect(header == nil, "\(request) → \(status)")
        }
    }

    @Test func withoutTLSTheServerDoesNotStart() throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.inMemoryStorage = true
        configuration.hstsMaxAge = .seconds(600)
        let error = #expect(throws: ServerStartError.self) {
            _ = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "hsts"], logger: .discarding)
        }
        #expect(error?.description.contains("--tls-cert") == true, "\(String(describing: error))")
    }
}
