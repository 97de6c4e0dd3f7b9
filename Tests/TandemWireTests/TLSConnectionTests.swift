import Foundation
import Synchronization
import Testing
import TandemSubprocess
import TandemTestSupport
@testable import TandemWire

/// TLS on real loopback sockets: a `wss://` server and client on Tandem's event loops, HTTPS requests, and
/// the failures a client must name (unknown CA, expired certificate, wrong host, plain peers either way).
@Suite(.serialized) struct TLSConnectionTests {
    private func certificates() throws -> TestCertificates { try TestCertificates.forTests() }

    private func serverContext(rsa: Bool = false) throws -> TLSContext {
        let certificates = try certificates()
        return try TLSContext(rsa ? .server(certificateChain: certificates.rsaServerChain, privateKey: certificates.rsaServerKey)
                                  : .server(certificateChain: certificates.serverChain, privateKey: certificates.serverKey))
    }

    private func clientContext(trusting ca: String? = nil, at time: Int64? = nil) throws -> TLSContext {
        var configuration = TLSConfiguration.client(additionalTrustRoots: [try ca ?? certificates().caFile], trustsSystemRoots: false)
        configuration.verificationTime = time
        return try TLSContext(configuration)
    }

    /// Generous: in a full parallel run on 2 cores the loops may wait seconds for a core; the tests are
    /// about what the handshake checks, not how fast it is.
    private static let handshakeTimeout: Duration = .seconds(30)

    private func secureServer(host: String = "127.0.0.1", rsa: Bool = false, hsts: Int? = nil) throws -> TestWebSocketServer {
        let context = try serverContext(rsa: rsa)
        return try TestWebSocketServer(configure: {
            $0.host = host
            $0.tls = context
            $0.strictTransportSecurityMaxAge = hsts
            $0.maxMessageSize = 1 << 20
        }, routes: { request in
            request.target == "/healthz" ? HTTPResponse(status: 200, body: Array("ok\n".utf8)) : nil
        })
    }

    @Test func aSecureWebSocketCarriesMessagesBothWaysAndClosesCleanly() async throws {
        let server = try secureServer()
        defer { server.stop() }
        let tls = try clientContext()
        for host in ["localhost", "127.0.0.1"] {
            let client = try await WebSocketClient.connect(
                url: "wss://\(host):\(server.server.port)/v1/sync", timeout: Self.handshakeTimeout, maxMessageSize: 1 << 20, tls: tls,
                on: server.group.next())
            #expect(client.connection.tcp.isSecure)
            let events = EventCollector(client)
            // Many small messages in one go and one larger than a TLS record (16 KiB).
            for index in 0..<50 { try await client.send(text: Array("message \(index)".utf8)) }
            let large = [UInt8](repeating: UInt8(ascii: "x"), count: 200_000)
            try await client.send(text: large)
            try await eventually("echoes") { events.texts.count == 51 }
            #expect(events.texts.prefix(50) == (0..<50).map { Array("message \($0)".utf8) }[...])
            #expect(events.texts.last == large)
            await client.close(code: 1000, reason: "done")
            // The collector reads the client's events on a task of its own: the close event may still be on its way.
            try await eventually("the close event") { events.closed != nil }
            #expect(events.closed?.code == 1000)
        }
        try await eventually("server heard both clean closes") {
            (0..<2).allSatisfy { server.handler($0)?.snapshot.closes.first == CloseRecord(code: 1000, reason: "done", clean: true) }
        }
    }

    @Test func httpsRequestsAreServedOnTheSamePort() async throws {
        let server = try secureServer()
        defer { server.stop() }
        let response = try await HTTPClient.send(
            method: "GET", url: "https://localhost:\(server.server.port)/healthz", timeout: Self.handshakeTimeout, tls: try clientContext(),
            on: server.group.next())
        #expect(response.status == 200)
        #expect(response.body == Array("ok\n".utf8))
    }

    @Test func aPlainRequestToATLSPortGetsAPlainAnswerAndAClose() async throws {
        let server = try secureServer()
        defer { server.stop() }
        let peer = try BlockingPeer(connectingTo: server.address)
        try peer.send(Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        var received: [UInt8] = []
        while case .success(let chunk) = await peer.receiveOffPool(), !chunk.isEmpty { received += chunk }
        #expect(received.text.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(received.text)")
        #expect(received.text.contains("use https:// or wss://"))
        // The server keeps serving TLS clients.
        let response = try await HTTPClient.send(
            method: "GET", url: "https://127.0.0.1:\(server.server.port)/healthz", timeout: Self.handshakeTimeout, tls: try clientContext(),
            on: server.group.next())
        #expect(response.status == 200)
    }

    @Test func aSecureClientToAPlainPortIsToldTheServerDoesNotSpeakTLS() async throws {
        let server = try TestWebSocketServer()
        defer { server.stop() }
        await #expect(throws: WebSocketClientError.tls(.notTLS(isServer: false))) {
            _ = try await WebSocketClient.connect(url: "wss://127.0.0.1:\(server.server.port)/v1/sync", tls: try clientContext(),
                                                  on: server.group.next())
        }
    }

    @Test func certificateProblemsAreTypedErrors() async throws {
        let server = try secureServer()
        defer { server.stop() }
        let url = "wss://localhost:\(server.server.port)/v1/sync"
        let loop = server.group.next()
        let untrusted = await #expect(throws: WebSocketClientError.self) {
            _ = try await WebSocketClient.connect(url: url, tls: try clientContext(trusting: try certificates().otherCAFile), on: loop)
        }
        guard case .tls(.untrustedCertificate)? = untrusted else { Issue.record("got \(String(describing: untrusted))"); return }
        let twoDaysOn = Int64(Date().timeIntervalSince1970) + 2 * 86_400
        let expired = await #expect(throws: WebSocketClientError.self) {
            _ = try await WebSocketClient.connect(url: url, tls: try clientContext(at: twoDaysOn), on: loop)
        }
        guard case .tls(.certificateExpired)? = expired else { Issue.record("got \(String(describing: expired))"); return }
        // The system's trust store does not know the test CA.
        let system = await #expect(throws: WebSocketClientError.self) { _ = try await WebSocketClient.connect(url: url, on: loop) }
        guard case .tls(.untrustedCertificate)? = system else { Issue.record("got \(String(describing: system))"); return }
        // After every refusal the server still serves.
        _ = try await WebSocketClient.connect(url: url, timeout: Self.handshakeTimeout, tls: try clientContext(), on: loop)
    }

    @Test func aCertificateForAnotherAddressIsAHostnameMismatch() async throws {
        // 127.0.0.2 is loopback too, and the certificate names only localhost and 127.0.0.1.
        let server = try secureServer(host: "127.0.0.2")
        defer { server.stop() }
        await #expect(throws: WebSocketClientError.tls(.hostnameMismatch(expected: "127.0.0.2"))) {
            _ = try await WebSocketClient.connect(url: "wss://127.0.0.2:\(server.server.port)/v1/sync", tls: try clientContext(),
                                                  on: server.group.next())
        }
    }

    @Test func aServerThatNeverAnswersTheHelloTimesOut() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let silent = try TCPListener.bind(host: "127.0.0.1", port: 0, group: group) { _ in RecordingHandler() }
        defer { silent.close() }
        let clock = ContinuousClock()
        let start = clock.now
        await #expect(throws: WebSocketClientError.timeout) {
            _ = try await WebSocketClient.connect(url: "wss://127.0.0.1:\(silent.port)/", timeout: .milliseconds(200),
                                                  tls: try clientContext(), on: group.next())
        }
        #expect(clock.now - start < .seconds(2))
    }

    /// Runs `openssl s_client` against `port` with `arguments` and its input at end of file (it connects,
    /// handshakes and leaves); returns whether the handshake succeeded and what it printed.
    private func openSSLClient(port: Int, _ arguments: [String]) async throws -> (connected: Bool, output: String) {
        try await offload {
            let process = try ChildProcess(
                executable: "/usr/bin/openssl",
                arguments: ["s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost", "-brief"] + arguments,
                standardOutput: .pipe, standardError: .pipe)
            let output = process.standardOutput?.readDataToEndOfFile() ?? Data()
            let errors = process.standardError?.readDataToEndOfFile() ?? Data()
            process.waitUntilExit()
            let text = String(decoding: output + errors, as: UTF8.self)
            return (process.terminationStatus == 0 && text.contains("CONNECTION ESTABLISHED"), text)
        }
    }

    /// A real TLS 1.2 client asking for one suite at a time: without forward secrecy (RSA key exchange) or with
    /// CBC it gets no handshake; ECDHE with AES-GCM or ChaCha20-Poly1305 is served. TLS 1.3 is unchanged. An RSA
    /// certificate, since only RSA can do the key exchange itself.
    @Test func tls12IsServedOnlyWithForwardSecretAEADSuites() async throws {
        let server = try secureServer(rsa: true)
        defer { server.stop() }
        let port = server.server.port
        for suite in ["AES128-GCM-SHA256", "AES256-GCM-SHA384", "AES128-SHA256", "AES256-SHA", "ECDHE-RSA-AES128-SHA256", "ECDHE-RSA-AES256-SHA"] {
            let refused = try await openSSLClient(port: port, ["-tls1_2", "-cipher", suite])
            #expect(!refused.connected, "\(suite) was served: \(refused.output)")
        }
        for suite in ["ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-RSA-CHACHA20-POLY1305"] {
            let served = try await openSSLClient(port: port, ["-tls1_2", "-cipher", suite])
            #expect(served.connected && served.output.contains("Ciphersuite: \(suite)"), "\(suite): \(served.output)")
        }
        let tls13 = try await openSSLClient(port: port, ["-tls1_3"])
        #expect(tls13.connected && tls13.output.contains("Protocol version: TLSv1.3"), "\(tls13.output)")
    }

    /// Sends `request` over TLS with `openssl s_client` and returns the response head it reads.
    private func openSSLExchange(port: Int, _ request: String) async throws -> String {
        try await offload {
            let process = try ChildProcess(
                executable: "/usr/bin/openssl", arguments: ["s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost", "-quiet"],
                standardInput: .pipe, standardOutput: .pipe)
            defer {
                process.terminate()
                process.waitUntilExit()
            }
            process.standardInput?.write(Data(request.utf8))
            var received = Data()
            while received.range(of: Data("\r\n\r\n".utf8)) == nil, let chunk = process.standardOutput?.availableData, !chunk.isEmpty {
                received += chunk
            }
            return String(decoding: received, as: UTF8.self)
        }
    }

    /// Every response over TLS carries the header — a route's answer, an error the server makes itself, a
    /// WebSocket upgrade's 101 — and the plain-text reply to a plain request on the TLS port does not.
    @Test func everyResponseOverTLSCarriesStrictTransportSecurity() async throws {
        let server = try secureServer(hsts: 600)
        defer { server.stop() }
        let port = server.server.port
        for (path, status) in [("/healthz", 200), ("/nowhere", 404)] {
            let response = try await HTTPClient.send(
                method: "GET", url: "https://localhost:\(port)\(path)", timeout: Self.handshakeTimeout, tls: try clientContext(),
                on: server.group.next())
            #expect(response.status == status)
            #expect(response.headers["Strict-Transport-Security"] == "max-age=600", "\(path)")
        }
        let upgrade = try await openSSLExchange(port: port, "GET /v1/sync HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: tandem.v1\r\n\r\n")
        #expect(upgrade.hasPrefix("HTTP/1.1 101 "), "\(upgrade)")
        #expect(upgrade.contains("\r\nStrict-Transport-Security: max-age=600\r\n"), "\(upgrade)")

        let peer = try BlockingPeer(connectingTo: server.address)
        try peer.send(Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        var plain: [UInt8] = []
        while case .success(let chunk) = await peer.receiveOffPool(), !chunk.isEmpty { plain += chunk }
        #expect(plain.text.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(!plain.text.contains("Strict-Transport-Security"))
    }

    @Test func withoutTheSettingNoResponseCarriesStrictTransportSecurity() async throws {
        let server = try secureServer()
        defer { server.stop() }
        let response = try await HTTPClient.send(
            method: "GET", url: "https://localhost:\(server.server.port)/healthz", timeout: Self.handshakeTimeout, tls: try clientContext(),
            on: server.group.next())
        #expect(response.status == 200 && !response.headers.contains(name: "Strict-Transport-Security"))
    }
}
