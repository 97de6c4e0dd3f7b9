import Synchronization
import Testing
import TandemTestSupport
@testable import TandemWire

/// A fake server that completes the upgrade and then stops reading, so a client's writes pile up.
final class StallingUpgradeServer: TCPConnectionHandler, @unchecked Sendable {
    private var parser = HTTPRequestParser()
    let connection = Mutex<TCPConnection?>(nil)

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        parser.append(bytes)
        guard let request = try? parser.nextRequest(), let upgrade = try? WebSocketServerHandshake().evaluate(request) else { return }
        connection.write(upgrade.response().bytes)
        connection.pauseReading()
        self.connection.withLock { $0 = connection }
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {}
}

@Suite("WebSocket client", .serialized)
struct WebSocketClientTests {
    @Test("ws:// and wss:// URLs: hosts, bracketed IPv6, default ports and path, query kept")
    func urls() throws {
        let full = try WebSocketURL("ws://127.0.0.1:8080/v1/sync?room=a")
        #expect(full == WebSocketURL(host: "127.0.0.1", port: 8080, target: "/v1/sync?room=a", hostHeader: "127.0.0.1:8080"))
        #expect(try WebSocketURL("ws://[::1]:9000/x") == WebSocketURL(host: "::1", port: 9000, target: "/x", hostHeader: "[::1]:9000"))
        #expect(try WebSocketURL("WS://example.org") == WebSocketURL(host: "example.org", port: 80, target: "/", hostHeader: "example.org"))
        #expect(try WebSocketURL("ws://h?x=1#frag").target == "/?x=1")
        #expect(try WebSocketURL("wss://example.org/v1/sync")
            == WebSocketURL(host: "example.org", port: 443, target: "/v1/sync", hostHeader: "example.org", isSecure: true))
        #expect(try WebSocketURL("WSS://[::1]:8443") == WebSocketURL(host: "::1", port: 8443, target: "/", hostHeader: "[::1]:8443", isSecure: true))
        #expect(try WebSocketURL("https://h/x", scheme: "http") == WebSocketURL(host: "h", port: 443, target: "/x", hostHeader: "h", isSecure: true))
        for bad in ["http://h/", "https://h/", "wss:/h", "ws://:80/", "ws://h:0/", "ws://h:99999/", "ws://h:abc/", "ws://::1/", "ws://u@h/", "ws://[::1/", "ws://"] {
            #expect(throws: WebSocketClientError.self, "\(bad)") { _ = try WebSocketURL(bad) }
        }
    }

    @Test("connect errors: bad URL, refused port, silent server (timeout), server that hangs up")
    func connectErrors() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.next()
        await #expect(throws: WebSocketClientError.invalidURL("ftp://x/: the scheme must be ws:// or wss://")) {
            _ = try await WebSocketClient.connect(url: "ftp://x/", on: loop)
        }
        let closedPort = try TCPListener.bind(host: "127.0.0.1", port: 0, group: group) { _ in RecordingHandler() }
        let port = closedPort.port
        closedPort.close()
        try await Task.sleep(for: .milliseconds(20))
        await #expect {
            _ = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/", on: loop)
        } throws: { error in
            if case .connectFailed = error as? WebSocketClientError { return true }
            return false
        }

        let silent = try TCPListener.bind(host: "127.0.0.1", port: 0, group: group) { _ in RecordingHandler() }
        defer { silent.close() }
        let clock = ContinuousClock()
        let start = clock.now
        await #expect(throws: WebSocketClientError.timeout) {
            _ = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(silent.port)/", timeout: .milliseconds(200), on: loop)
        }
        #expect(clock.now - start < .seconds(2))

        let hangsUp = try TCPListener.bind(host: "127.0.0.1", port: 0, group: group) { connection in
            let handler = RecordingHandler()
            connection.close()
            return handler
        }
        defer { hangsUp.close() }
        await #expect {
            _ = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(hangsUp.port)/", on: loop)
        } throws: { error in
            if case .handshakeFailed = error as? WebSocketClientError { return true }
            return false
        }
    }

    @Test("a subprotocol the server did not offer back is nil; extra headers reach the server")
    func headersAndSubprotocol() async throws {
        let seen = Mutex<String?>(nil)
        let server = try TestWebSocketServer(makeHandler: { upgrade in
            seen.withLock { $0 = upgrade.request.headers["X-Trace"] }
            return RecordingWebSocketHandler()
        })
        defer { server.stop() }
        let client = try await WebSocketClient.connect(url: server.url(), headers: [("X-Trace", "abc")], on: server.group.next())
        #expect(client.subprotocol == nil)
        #expect(seen.withLock { $0 } == "abc")
        // A host name is resolved; each address is tried until one connects.
        let byName = try await WebSocketClient.connect(url: "ws://localhost:\(server.server.port)/v1/sync", on: server.group.next())
        #expect(byName.connection.remoteAddress?.hasSuffix(":\(server.server.port)") == true)
    }

    @Test("abort drops the connection: the server hears no close code, the client stream ends")
    func abortDrops() async throws {
        let server = try TestWebSocketServer()
        defer { server.stop() }
        let client = try await WebSocketClient.connect(url: server.url(), on: server.group.next())
        let events = EventCollector(client)
        client.abort()
        try await eventually("client closed") { events.closed != nil }
        #expect(events.closed?.code == nil)
        try await eventually("server saw the drop") { server.handler(0)?.snapshot.closes.count == 1 }
        #expect(server.handler(0)?.snapshot.closes.first?.code == nil)
        #expect(server.handler(0)?.snapshot.closes.first?.clean == false)
        await #expect(throws: WebSocketClientError.closed) { try await client.send(text: [0x41]) }
    }

    @Test("a message above the client's maxMessageSize fails the connection with 1009")
    func clientMessageLimit() async throws {
        let server = try TestWebSocketServer()
        defer { server.stop() }
        let client = try await WebSocketClient.connect(url: server.url(), maxMessageSize: 100, on: server.group.next())
        let events = EventCollector(client)
        try await client.send(text: [UInt8](repeating: 0x42, count: 200))
        try await eventually("1009") { events.closed?.code == 1009 }
        try await eventually("server saw 1009") { server.handler(0)?.snapshot.closes.first?.code == 1009 }
    }

    @Test("send suspends while the server does not read, and resumes when it does")
    func sendBackpressure() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let stalling = StallingUpgradeServer()
        let listener = try TCPListener.bind(host: "127.0.0.1", port: 0, group: group) { _ in stalling }
        defer { listener.close() }
        let client = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(listener.port)/", on: group.next())
        let sent = Atomic<Int>(0)
        let total = 400
        let sender = Task {
            let chunk = [UInt8](repeating: 0x61, count: 64 * 1024)
            for _ in 0..<total {
                try await client.send(text: chunk)
                sent.add(1, ordering: .relaxed)
            }
        }
        // The kernel buffers a few MiB on loopback; past that the client queue must stop at its high-water mark.
        var previous = -1
        while sent.load(ordering: .relaxed) != previous {
            previous = sent.load(ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(previous < total)
        let queued = try await client.connection.loop.submit { client.connection.queuedBytes }
        #expect(queued <= (1 << 20) + 64 * 1024 + 16)
        let server = try #require(stalling.connection.withLock { $0 })
        try await server.loop.submit { server.resumeReading() }
        try await sender.value
        #expect(sent.load(ordering: .relaxed) == total)
    }
}

@Suite("WebSocket client lifetime")
struct WebSocketClientLifetimeTests {
    @Test("dropping a client without closing it drops its connection")
    func deinitAborts() async throws {
        let server = try TestWebSocketServer()
        defer { server.stop() }
        var client: WebSocketClient? = try await WebSocketClient.connect(url: server.url(), on: server.group.next())
        try await eventually("connected") { server.server.connectionCount == 1 }
        #expect(client != nil)
        client = nil
        try await eventually("server saw the drop") { server.handler(0)?.snapshot.closes.count == 1 }
        #expect(server.handler(0)?.snapshot.closes.first?.code == nil)
    }
}
