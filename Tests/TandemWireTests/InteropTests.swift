import Foundation
import Synchronization
import Testing
import TandemTestSupport
@testable import TandemWire

/// The server-side handler for interop runs: echoes everything, closes with 4200 when asked to.
final class InteropServerHandler: WebSocketHandler, @unchecked Sendable {
    let closes = Mutex<[CloseRecord]>([])

    func webSocketDidReceiveText(_ connection: WebSocketConnection, _ text: [UInt8]) {
        if text == Array("close-me".utf8) {
            connection.close(code: 4200, reason: "swift bye")
        } else {
            connection.sendText(text)
        }
    }

    func webSocketDidReceiveBinary(_ connection: WebSocketConnection, _ bytes: [UInt8]) {
        connection.sendBinary(bytes)
    }

    func webSocketDidClose(_ connection: WebSocketConnection, code: UInt16?, reason: String, clean: Bool) {
        closes.withLock { $0.append(CloseRecord(code: code, reason: reason, clean: clean)) }
    }
}

@Suite("Interop with the Python websockets package", .serialized)
struct InteropTests {
    private static let checks = ["subprotocol", "text", "binary", "fragmented", "large", "ping"]

    @Test("its client against our server", arguments: ["client-close", "server-close"])
    func pythonClientAgainstOurServer(mode: String) async throws {
        let handler = InteropServerHandler()
        let server = try TestWebSocketServer(configure: { $0.maxMessageSize = 2 << 20 }, makeHandler: { _ in handler })
        defer { server.stop() }
        let peer = try PythonPeer(script: "peer_client.py", arguments: [server.url(), mode])
        let status = try await peer.exitStatus()
        #expect(status == 0, "python client failed:\n\(peer.stdout)\n\(peer.stderr)")
        for check in Self.checks + [mode] {
            #expect(peer.stdout.contains("OK \(check)\n"), "missing check \(check):\n\(peer.stdout)\n\(peer.stderr)")
        }
        let expected = mode == "client-close"
            ? CloseRecord(code: 4100, reason: "python bye", clean: false)
            : CloseRecord(code: 4200, reason: "swift bye", clean: false)
        try await eventually("server handler closed") { handler.closes.withLock { $0 } == [expected] }
    }

    @Test("its server against our client: messages of every kind, ping, both close directions, plain and over TLS",
          arguments: [false, true])
    func ourClientAgainstPythonServer(secure: Bool) async throws {
        let certificates = try TestCertificates.forTests()
        let peer = try PythonPeer(script: "peer_server.py",
                                  arguments: secure ? ["--tls", certificates.serverChain, certificates.serverKey] : [])
        defer { peer.stop() }
        let port = try await peer.port()
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let url = secure ? "wss://localhost:\(port)/" : "ws://127.0.0.1:\(port)/"
        let tls = try TLSContext(.client(additionalTrustRoots: [certificates.caFile], trustsSystemRoots: false))
        let client = try await WebSocketClient.connect(url: url, subprotocols: ["tandem.v1"], tls: tls, on: group.next())
        #expect(client.connection.tcp.isSecure == secure)
        #expect(client.subprotocol == nil)  // the reference server negotiates none
        let events = EventCollector(client)
        let pongs = Mutex<[[UInt8]]>([])
        try await client.connection.loop.submit { client.connection.pongObserver = { payload in pongs.withLock { $0.append(payload) } } }

        try await client.send(text: Array("héllo".utf8))
        try await client.send(binary: [0, 1, 2, 255])
        try await client.send(text: Array("fragment".utf8))
        let big = [UInt8](repeating: 0x7A, count: 1 << 20)
        try await client.send(text: big)
        try await client.send(text: Array("big \(1 << 20)".utf8))
        try await client.send(text: Array("ping".utf8))
        client.ping([5, 6])
        try await eventually("all answers") { events.events.count >= 6 }
        #expect(events.events.prefix(6) == [
            .text(Array("héllo".utf8)), .binary([0, 1, 2, 255]), .text(Array("fragmented".utf8)), .text(big),
            .text([UInt8](repeating: 0x78, count: 1 << 20)), .text(Array("pong received".utf8)),
        ])
        try await eventually("pong for our ping") { pongs.withLock { $0 } == [[5, 6]] }

        // Our close: the reference server sees our code and reason.
        await client.close(code: 4100, reason: "swift client bye")
        // The collector pumps events on its own task: wait for it rather than racing it.
        try await eventually("our close reported") { events.closed?.code == 4100 }
        try await eventually("server saw our close") { peer.stdout.contains("SERVER-CLOSED 4100 swift client bye\n") }

        // Its close: we see its code and reason.
        let second = try await WebSocketClient.connect(url: url, tls: tls, on: group.next())
        let secondEvents = EventCollector(second)
        try await second.send(text: Array("close 4300 python closes".utf8))
        try await eventually("python close reached us") { secondEvents.closed != nil }
        #expect(secondEvents.closed?.code == 4300)
        #expect(secondEvents.closed?.reason == "python closes")
    }
}
