import Foundation
import Testing
import TandemProtocol
import TandemServer
import TandemTestSupport
import TandemWire
@testable import TandemClient

/// TLS the way it is deployed, with real processes: `tandem serve --tls-cert` serving a third-party client
/// (Python `websockets` over the stdlib `ssl`), `tandem join --ca-file` and a plain-text client; and
/// TandemClient through nginx terminating TLS in front of a plain server.
@Suite(.serialized) struct TLSDeploymentTests {
    private func certificates() throws -> TestCertificates { try TestCertificates.forTests() }

    /// Runs the real `tandem join` with `arguments`, feeding it `lines`.
    private func join(_ arguments: [String], lines: [String]) async throws -> TandemRun {
        try await TandemRun.run(["join"] + arguments, input: lines)
    }

    @Test func tandemServeOverTLSServesAThirdPartyClientTandemJoinAndAPlainTextClient() async throws {
        let certificates = try certificates()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-tls-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let secret = "tls-secret"
        let (server, url) = try await offload {
            try ServeProcess.serve(data: data, secret: secret, extra: ["--tls-cert", certificates.serverChain, "--tls-key", certificates.serverKey])
        }
        defer { server.terminate(); server.waitUntilExit() }
        #expect(url.hasPrefix("wss://127.0.0.1:"))
        let tokens = TokenVerifier(secret: Array(secret.utf8), hmac: { Digest.hmacSHA256(key: $0, message: $1) },
                                   now: { Int64(Date().timeIntervalSince1970) })
        func token(_ user: String, _ role: Role, room: String = "interop") -> String {
            tokens.mint(TokenClaims(sub: user, room: room, role: role, exp: tokens.currentTime + 600))
        }

        // A third-party TLS stack and WebSocket client speaks the protocol (verifying our certificate).
        let python = try PythonPeer(script: "protocol_client.py", arguments: [url, token("python", .guest), certificates.caFile])
        let status = try await python.exitStatus(timeout: .seconds(60))
        #expect(status == 0, "python participant failed:\n\(python.stdout)\n\(python.stderr)")
        #expect(python.stdout.contains("OK closed\n"))

        // `tandem join --ca-file` applies a line over wss:// and exits 0.
        let joined = try await join(["--url", url, "--token", token("alice", .host, room: "shop"), "--ca-file", certificates.caFile,
                                     "--drain-timeout", "20"], lines: [#"[{"op":"set","path":"/tabIndex","value":2}]"#])
        #expect(joined.status == 0, "tandem join failed: \(joined.stderr)")
        let states = joined.events("state")
        #expect(states.last?["state"] == ["tabIndex": 2] && states.last?["pending"] == 0)

        // Without the CA, `tandem join` names the certificate problem and stops instead of retrying.
        let refused = try await join(["--url", url, "--token", token("alice", .host, room: "shop")], lines: [])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("not trusted") || refused.stderr.contains("not trusted"), "\(refused.stdout)\n\(refused.stderr)")

        // A plain-text request gets a plain answer naming https://, and the server goes on serving TLS.
        let port = try #require(ServeProcess.port(of: url))
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let plain = try await HTTPClient.send(method: "GET", url: "http://127.0.0.1:\(port)/healthz", on: group.next())
        #expect(plain.status == 400)
        #expect(String(decoding: plain.body, as: UTF8.self).contains("https://"))
        let health = try await HTTPClient.send(method: "GET", url: "https://127.0.0.1:\(port)/healthz",
                                               tls: try TLSContext(.client(additionalTrustRoots: [certificates.caFile])), on: group.next())
        #expect(health.status == 200)
    }

    @Test func sighupServesRenewedCertificatesToNewConnectionsAndABadRenewalKeepsTheOldOnes() async throws {
        let certificates = try certificates()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-renew-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: data) }
        let chain = "\(data)/fullchain.pem", key = "\(data)/privkey.pem"
        func install(_ sourceChain: String, _ sourceKey: String) throws {
            for (source, target) in [(sourceChain, chain), (sourceKey, key)] {
                try? FileManager.default.removeItem(atPath: target)
                try FileManager.default.copyItem(atPath: source, toPath: target)
            }
        }
        try install(certificates.serverChain, certificates.serverKey)
        let server = try ServeProcess.start(["serve", "--port", "0", "--data", data, "--in-memory", "--log-level", "error",
                                             "--tls-cert", chain, "--tls-key", key], secret: "renew", capturesErrors: true)
        defer { server.terminate() }
        let banner = try await offload { server.read { $0.contains("Stop with Ctrl-C") } }
        let port = try #require(ServeProcess.listeningURL(in: banner).flatMap(ServeProcess.port(of:)))
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let first = try TLSContext(.client(additionalTrustRoots: [certificates.caFile], trustsSystemRoots: false))
        let other = try TLSContext(.client(additionalTrustRoots: [certificates.otherCAFile], trustsSystemRoots: false))
        func health(_ tls: TLSContext) async throws -> Int {
            try await HTTPClient.send(method: "GET", url: "https://localhost:\(port)/healthz", tls: tls, on: group.next()).status
        }
        #expect(try await health(first) == 200)

        // A renewal from another CA: new connections get it.
        try install(certificates.otherServerChain, certificates.otherServerKey)
        kill(server.process.processIdentifier, SIGHUP)
        let reloaded = try await offload { server.read { $0.contains("certificates reloaded") } }
        #expect(reloaded.contains("SIGHUP received, certificates reloaded"), "\(reloaded)")
        #expect(try await health(other) == 200)
        await #expect(throws: HTTPClientError.self) { _ = try await health(first) }

        // A broken renewal (a key that does not match) changes nothing.
        try install(certificates.serverChain, certificates.otherServerKey)
        kill(server.process.processIdentifier, SIGHUP)
        let refused = try await offload { server.readErrors { $0.contains("still serving") } }
        #expect(refused.contains("still serving the certificates loaded before"), "\(refused)")
        #expect(try await health(other) == 200)
        #expect(server.process.isRunning)
        #expect(server.terminate(), "SIGTERM still shuts it down")
    }

    @Test(.enabled(if: NginxFront.isInstalled || ProcessInfo.processInfo.environment["TANDEM_REQUIRE_NGINX"] == "1", "nginx is not installed"))
    func sessionsSyncThroughNginxTerminatingTLSInFrontOfAPlainTandemServe() async throws {
        let certificates = try certificates()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-nginx-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let secret = "behind-nginx"
        let (server, plainURL) = try await offload { try ServeProcess.serve(data: data, secret: secret) }
        defer { server.terminate(); server.waitUntilExit() }
        let backendPort = try #require(ServeProcess.port(of: plainURL))
        let front = try NginxFront(backendPort: backendPort, certificateChain: certificates.serverChain, privateKey: certificates.serverKey)
        defer { front.stop() }
        let tokens = TokenVerifier(secret: Array(secret.utf8), hmac: { Digest.hmacSHA256(key: $0, message: $1) },
                                   now: { Int64(Date().timeIntervalSince1970) })
        func token(_ user: String) -> String {
            tokens.mint(TokenClaims(sub: user, room: "lobby", role: .host, exp: tokens.currentTime + 600))
        }
        let url = "wss://localhost:\(front.port)\(TandemProtocol.syncPath)"
        let trust = TLSConfiguration.client(additionalTrustRoots: [certificates.caFile])
        let configuration = SyncSessionConfiguration(reconnect: ReconnectPolicy(backoff: Backoff(base: .seconds(0.01), cap: .seconds(0.05))))
        let aliceToken = token("alice")
        let bobToken = token("bob")
        let alice = SyncSession(url: url, clientID: "a1", tokenProvider: { aliceToken }, configuration: configuration,
                                transport: WireTransport(tls: trust))
        let bob = SyncSession(url: url, clientID: "b1", tokenProvider: { bobToken }, configuration: configuration,
                              transport: WireTransport(tls: trust))
        await alice.start()
        await bob.start()
        #expect(await alice.waitUntilConnected(timeout: .seconds(10)))
        #expect(await bob.waitUntilConnected(timeout: .seconds(10)))
        for index in 1...20 { try await alice.apply([Fixtures.set("/contentOffset", ["x": 0, "y": .number(Double(index * 10))])]) }
        #expect(await alice.drain(timeout: .seconds(10)))
        #expect(await eventually { await bob.snapshot.state == ["contentOffset": ["x": 0, "y": 200]] })
        await alice.stop()
        await bob.stop()

        // `tandem invite` over HTTPS through the same front, verifying it with --ca-file.
        let printed = try await TandemRun.run(["invite", "--url", "https://localhost:\(front.port)", "--token", aliceToken,
                                               "--ca-file", certificates.caFile])
        #expect(printed.status == 0, "tandem invite failed: \(printed.stderr)")
        let lines = printed.stdout.split(separator: "\n")
        // Without `--public-url` the server behind the proxy names the address it listens on, never the Host header
        // the proxy passed on; `--public-url https://…` sets the links' origin.
        #expect(lines.first?.count == 6 && lines.dropFirst().first?.contains("http://127.0.0.1:\(backendPort)/#invite=") == true, "\(printed.stdout)")
    }
}
