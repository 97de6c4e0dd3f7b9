import Foundation
import Testing
import TandemProtocol
import TandemTestSupport
@testable import TandemServer

/// A participant written against the Python `websockets` client speaks protocol v1 to the server.
@Suite struct ProtocolInteropTests {
    @Test func aThirdPartyWebSocketClientSpeaksTheProtocol() async throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = SyncServerTests.temporaryDirectory()
        configuration.helloTimeout = .seconds(60)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "interop"], logger: .discarding)
        let token = server.tokens.mint(TokenClaims(sub: "python", room: "interop", role: .guest, exp: server.tokens.currentTime + 600))
        let peer = try PythonPeer(script: "protocol_client.py", arguments: [server.syncURL, token])
        let status = try await peer.exitStatus(timeout: .seconds(60))
        await server.shutdown()
        #expect(status == 0, "python participant failed:\n\(peer.stdout)\n\(peer.stderr)")
        for check in ["welcome", "ack", "duplicate", "reject", "json patch", "pong", "unknown type keeps the connection", "closed"] {
            #expect(peer.stdout.contains("OK \(check)\n"), "missing check \(check)")
        }
    }
}
