import Foundation
import Synchronization
import Testing
import TandemTestSupport
@testable import TandemWire

@Suite("WebSocket server and client over loopback", .serialized)
struct WebSocketServerTests {
    private func connect(_ server: TestWebSocketServer, headers: [(String, String)] = [], path: String = "/v1/sync") async throws -> WebSocketClient {
        try await WebSocketClient.connect(url: server.url(path), subprotocols: ["tandem.v1"], headers: headers, timeout: .seconds(5), on: server.group.next())
    }

    @Test("text flows both ways; the subprotocol is negotiated; a shared frame reaches several clients")
    func textBothWays() async throws {
        let server = try TestWebSocketServer()
        defer { server.stop() }
        let first = try await connect(server)
        let second = try await connect(server)
        let events = [EventCollector(first), EventCollector(second)]
        #expect(first.subprotocol == "tandem.v1")
        #expect(server.connections.first?.subprotocol == "tandem.v1")
        try await first.send(text: Array("héllo".utf8))
        try await eventually("echo") { events[0].texts == [Array("héllo".utf8)] }
        #expect(server.handler(0)?.snapshot.texts == [Array("héllo".utf8)])

        let shared = WebSocketOutboundFrame(text: Array("{\"type\":\"patch\"}".utf8))
        #expect(shared.payloadCount == 16)
        for connection in server.connections { connection.send(shared) }
        try await eventually("fan-out") { events.allSatisfy { $0.texts.last == Array("{\"type\":\"patch\"}".utf8) } }
        #expect(server.server.connectionCount == 2)
        let ids = Set(server.connections.map(\.id) + [first.connection.id, second.connection.id])
        #expect(ids.count == 4)
        #expect(server.connections.allSatisfy { $0.remoteAddress?.hasPrefix("127.0.0.1:") == true && $0.role == .server })
    }

    @Test("frames go out in the order they were sent, whatever the thread: a send on the loop waits behind one another thread queued")
    func queuedSendsKeepOrder() async throws {
        let server = try TestWebSocketServer()
        defer { server.stop() }
        let client = try await connect(server)
        let events = EventCollector(client)
        try await eventually("accepted") { server.connections.count == 1 }
        let connection = server.connections[0]
        let loop = connection.loop
        let earlier = WebSocketOutboundFrame(text: Array("earlier".utf8))
        let later = WebSocketOutboundFrame(text: Array("later".utf8))
        let first = WebSocketOutboundFrame(text: Array("first".utf8))
        let second = WebSocketOutboundFrame(text: Array("second".utf8))
        loop.execute {
            // Another thread sends while the loop is busy here: its frame waits in the loop's inbox.
            let sent = DispatchSemaphore(value: 0)
            Thread {
                connection.send(earlier)
                sent.signal()
            }.start()
            sent.wait()
            loop.withQueuedSends {
                #expect(!loop.sendsDirectly)
                connection.send(later)
            }
            #expect(loop.sendsDirectly)
            // Outside withQueuedSends too, a send from the loop waits behind what other threads queued first.
            connection.send(first)
            connection.sendText(Array("then".utf8))
        }
        try await eventually("every frame") { events.texts.count == 4 }
        #expect(events.texts == ["earlier", "later", "first", "then"].map { Array($0.utf8) })
        // With nothing queued, a send from the loop is written at once again.
        loop.execute { connection.send(second) }
        try await eventually("the next frame") { events.texts.count == 5 }
        #expect(events.texts.last == Array("second".utf8))
    }

    @Test("1 MiB messages pass in both directions")
    func largeMessages() async throws {
        let server = try TestWebSocketServer(configure: { $0.maxMessageSize = 2 << 20 })
        defer { server.stop() }
        let client = try await connect(server)
        let events = EventCollector(client)
        let big = Array(String(repeating: "abcdefgh", count: (1 << 20) / 8).utf8)
        try await client.send(text: big)
        try await eventually("1 MiB echo") { events.texts.first?.count == big.count }
        #expect(events.texts.first == big)
    }

    @Test("a message above maxMessageSize closes with 1009")
    func tooBig() async throws {
        let server = try TestWebSocketServer(configure: { $0.maxMessageSize = 1000 })
        defer { server.stop() }
        let client = try await connect(server)
        let events = EventCollector(client)
        try await client.send(text: [UInt8](repeating: 0x41, count: 1001))
        try await eventually("1009") { events.closed?.code == 1009 }
        try await eventually("server saw 1009") { server.handler(0)?.snapshot.closes.first?.code == 1009 }
    }

    @Test("fragmented, byte-by-byte input from a raw peer is reassembled; pings are answered with pongs")
    func fragmentedRawInput() async throws {
        let server = try TestWebSocketServer()
        defer { server.stop() }
        let peer = try BlockingPeer(connectingTo: try server.address)
        try peer.send(rawUpgradeRequest())
        let head = await readHead(peer)
        #expect(head.text.hasPrefix("HTTP/1.1 101"))
        #expect(head.text.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
        var wire: [UInt8] = []
        let parts = ["frag", "men", "ted"]
        for (index, part) in parts.enumerated() {
            Array(part.utf8).withUnsafeBytes {
                WebSocketFrameEncoder.encodeFrame(
                    fin: index == parts.count - 1, opcode: index == 0 ? .text : .continuation, payload: $0,
                    maskKey: 0x1234_5678 &+ UInt32(index), into: &wire)
            }
            if index == 0 {
                [UInt8]([9, 9]).withUnsafeBytes { WebSocketFrameEncoder.encodeFrame(opcode: .ping, payload: $0, maskKey: 7, into: &wire) }
            }
        }
        for byte in wire { try peer.send([byte]) }
        var decoder = WebSocketFrameDecoder(role: .client)
        var frames: [WebSocketFrame] = []
        while frames.count < 2 {
            guard case .success(let chunk) = await peer.receiveOffPool(), !chunk.isEmpty else { break }
            decoder.append(chunk)
            while let frame = try decoder.nextFrame() { frames.append(frame) }
        }
        #expect(frames == [WebSocketFrame(opcode: .pong, payload: [9, 9]), WebSocketFrame(opcode: .text, payload: Array("fragmented".utf8))])
        #expect(server.handler(0)?.snapshot.texts == [Array("fragmented".utf8)])
    }

    @Test("pings from either side are answered")
    func pingPong() async throws {
        let server = try TestWebSocketServer()
        defer { server.stop() }
        let client = try await connect(server)
        let pongs = Mutex<[[UInt8]]>([])
        try await client.connection.loop.submit { client.connection.pongObserver = { payload in pongs.withLock { $0.append(payload) } } }
        client.ping([1, 2, 3])
        try await eventually("client got pong") { pongs.withLock { $0 } == [[1, 2, 3]] }
        let serverSide = try #require(server.connections.first)
        try await serverSide.loop.submit { serverSide.pongObserver = { payload in pongs.withLock { $0.append(payload) } } }
        serverSide.sendPing([7])
        try await eventually("server got pong") { pongs.withLock { $0 } == [[1, 2, 3], [7]] }
    }

    @Test("a client close with 1000 is clean on the server; other codes are reported as they were sent")
    func clientCloses() async throws {
        let server = try TestWebSocketServer()
        defer { server.stop() }
        let normal = try await connect(server)
        await normal.close(code: 1000, reason: "done")
        try await eventually("server saw 1000") { server.handler(0)?.snapshot.closes == [CloseRecord(code: 1000, reason: "done", clean: true)] }
        let custom = try await connect(server)
        let events = EventCollector(custom)
        await custom.close(code: 4321, reason: "bye")
        try await eventually("server saw 4321") { server.handler(1)?.snapshot.closes == [CloseRecord(code: 4321, reason: "bye", clean: false)] }
        try await eventually("client stream ends") { events.closed?.code == 4321 }
        await #expect(throws: WebSocketClientError.closed) { try await custom.send(text: [0x41]) }
        try await eventually("registry empty") { server.server.connectionCount == 0 }
    }

    @Test("a server close reaches the client with its code and reason")
    func serverCloses() async throws {
        let server = try TestWebSocketServer()
        defer { server.stop() }
        let client = try await connect(server)
        let events = EventCollector(client)
        try #require(server.connections.first).close(code: 4001, reason: "bad token")
        try await eventually("client closed") { events.closed != nil }
        #expect(events.closed?.code == 4001)
        #expect(events.closed?.reason == "bad token")
        try await eventually("server handler closed") { server.handler(0)?.snapshot.closes == [CloseRecord(code: 4001, reason: "bad token", clean: false)] }
    }

    @Test("binary messages are refused with 1003 by default")
    func binaryDefault() async throws {
        let server = try TestWebSocketServer(makeHandler: { _ in DefaultsHandler() })
        defer { server.stop() }
        let client = try await connect(server)
        let events = EventCollector(client)
        try await client.send(binary: [1, 2, 3])
        try await eventually("1003") { events.closed?.code == 1003 }
    }

    @Test("the idle timeout calls the handler; the default closes with 4000")
    func idleTimeout() async throws {
        let server = try TestWebSocketServer(idleSweep: .milliseconds(20), configure: { $0.idleTimeout = .milliseconds(150) }, makeHandler: { upgrade in
            upgrade.request.headers["X-Handler"] == "defaults" ? DefaultsHandler() as any WebSocketHandler : RecordingWebSocketHandler(idleCloseCode: 4555)
        })
        defer { server.stop() }
        let defaults = try await connect(server, headers: [("X-Handler", "defaults")])
        let defaultEvents = EventCollector(defaults)
        try await eventually("default idle close") { defaultEvents.closed?.code == 4000 }
        #expect(defaultEvents.closed?.reason == "idle timeout")

        let custom = try await connect(server)
        let customEvents = EventCollector(custom)
        try await custom.send(text: [0x41])
        try await eventually("custom idle close") { customEvents.closed?.code == 4555 }
        #expect(customEvents.texts == [[0x41]])
        #expect(server.handler(1)?.snapshot.idleFired == 1)
    }

    @Test("a consumer that stops reading is dropped with 4002 while another keeps working")
    func slowConsumer() async throws {
        let server = try TestWebSocketServer(configure: { $0.sendQueueLimit = 256 * 1024 })
        defer { server.stop() }
        let stalled = try BlockingPeer(connectingTo: try server.address, receiveBuffer: 4096)
        try stalled.send(rawUpgradeRequest())
        #expect(await readHead(stalled).text.hasPrefix("HTTP/1.1 101"))
        let healthy = try await connect(server)
        let healthyEvents = EventCollector(healthy)
        let stalledSide = try #require(server.connections.first)
        let chunk = [UInt8](repeating: 0x61, count: 64 * 1024)
        for _ in 0..<160 { stalledSide.sendText(chunk) }
        try await eventually("4002") { server.handler(0)?.snapshot.closes.first?.code == 4002 }
        #expect(server.handler(0)?.snapshot.closes.first?.clean == false)
        try await healthy.send(text: Array("still here".utf8))
        try await eventually("healthy echo") { healthyEvents.texts == [Array("still here".utf8)] }
    }

    @Test("a client that trickles a partial request is dropped after the handshake timeout")
    func handshakeTimeout() async throws {
        let server = try TestWebSocketServer(configure: { $0.handshakeTimeout = .milliseconds(200) })
        defer { server.stop() }
        let peer = try BlockingPeer(connectingTo: try server.address, receiveTimeout: .seconds(20))
        let clock = ContinuousClock()
        let start = clock.now
        try peer.send(Array("GET /v1/sync HTTP/1.1\r\nHo".utf8))
        let trickle = Task.detached {
            for byte in "st: x\r\nUpgrade: web".utf8 {
                try? peer.send([byte])
                try? await Task.sleep(for: .milliseconds(30))
            }
        }
        let result = await peer.receiveAllOffPool()
        let elapsed = clock.now - start
        trickle.cancel()
        #expect(result.bytes.isEmpty)
        // Dropped by the server (end of stream or reset), not ended by this side's receive timeout.
        #expect(result.end == nil || result.end?.isConnectionReset == true, "\(String(describing: result.end))")
        #expect(elapsed >= .milliseconds(150))
        #expect(elapsed < .seconds(15))
    }

    @Test("the origin allow-list refuses other origins with 403 and admits listed and absent ones")
    func originAllowList() async throws {
        let server = try TestWebSocketServer(configure: { $0.allowedOrigins = ["https://app.example"] })
        defer { server.stop() }
        await #expect(throws: WebSocketClientError.handshakeFailed("server answered 403 Forbidden instead of 101 Switching Protocols")) {
            _ = try await connect(server, headers: [("Origin", "https://evil.example")])
        }
        _ = try await connect(server, headers: [("Origin", "https://app.example")])
        _ = try await connect(server)
        #expect(server.connections.count == 2)
    }

    @Test("accept returning nil answers 403")
    func acceptRefuses() async throws {
        let server = try TestWebSocketServer(makeHandler: { _ in nil })
        defer { server.stop() }
        await #expect(throws: WebSocketClientError.handshakeFailed("server answered 403 Forbidden instead of 101 Switching Protocols")) {
            _ = try await connect(server)
        }
        #expect(server.server.connectionCount == 0)
    }

    @Test("plain requests go to the routes with keep-alive and pipelining; unknown paths get 404")
    func routesKeepAlive() async throws {
        let server = try TestWebSocketServer(routes: { request in
            request.path == "/health" ? HTTPResponse(status: 200, body: Array("ok".utf8)) : nil
        })
        defer { server.stop() }
        let peer = try BlockingPeer(connectingTo: try server.address)
        try peer.send(Array("GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        var received: [UInt8] = []
        while received.text.components(separatedBy: "HTTP/1.1 200 OK").count < 3 {
            guard case .success(let chunk) = await peer.receiveOffPool(), !chunk.isEmpty else { break }
            received += chunk
        }
        #expect(received.text.components(separatedBy: "HTTP/1.1 200 OK").count == 3)
        #expect(!received.text.contains("Connection: close"))
        try peer.send(Array("GET /missing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        let rest = await peer.receiveAllOffPool()
        #expect(rest.bytes.text.hasPrefix("HTTP/1.1 404"))
        #expect(rest.bytes.text.contains("Connection: close"))
    }

    @Test("upgrade errors: other path 404, no Upgrade header 426, bad key 400, malformed request 400")
    func upgradeErrors() async throws {
        let server = try TestWebSocketServer()
        defer { server.stop() }
        func exchange(_ request: [UInt8]) async throws -> String {
            let peer = try BlockingPeer(connectingTo: try server.address)
            try peer.send(request)
            return await peer.receiveAllOffPool().bytes.text
        }
        #expect(try await exchange(rawUpgradeRequest(path: "/other")).hasPrefix("HTTP/1.1 404"))
        #expect(try await exchange(Array("GET /v1/sync HTTP/1.1\r\nHost: x\r\n\r\n".utf8)).hasPrefix("HTTP/1.1 426"))
        let badKey = Array(rawUpgradeRequest().text.replacingOccurrences(of: "dGhlIHNhbXBsZSBub25jZQ==", with: "short").utf8)
        #expect(try await exchange(badKey).hasPrefix("HTTP/1.1 400"))
        #expect(try await exchange(Array("GARBAGE\r\n\r\n".utf8)).hasPrefix("HTTP/1.1 400"))
        #expect(try await exchange(rawUpgradeRequest(extra: "X-Padding: \(String(repeating: "p", count: 17 * 1024))\r\n")).hasPrefix("HTTP/1.1 431"))
        await #expect(throws: WebSocketClientError.handshakeFailed("server answered 404 Not Found instead of 101 Switching Protocols")) {
            _ = try await connect(server, path: "/elsewhere")
        }
    }

    @Test("connections beyond maxConnections are refused; a freed slot is reused")
    func connectionLimit() async throws {
        let server = try TestWebSocketServer(configure: { $0.maxConnections = 2 })
        defer { server.stop() }
        let first = try await connect(server)
        let second = try await connect(server)
        await #expect(throws: WebSocketClientError.self) { _ = try await connect(server) }
        await first.close()
        try await eventually("slot freed") { server.server.connectionCount == 1 }
        let third = try await connect(server)
        #expect(server.server.connectionCount == 2)
        withExtendedLifetime((second, third)) {}
    }

    @Test("shutdown closes every connection with 1001")
    func shutdownClosesAll() async throws {
        let server = try TestWebSocketServer()
        defer { server.group.shutdown() }
        var collectors: [EventCollector] = []
        for _ in 0..<3 { collectors.append(EventCollector(try await connect(server))) }
        server.server.shutdown(timeout: .seconds(5))
        #expect(server.server.connectionCount == 0)
        try await eventually("clients closed") { collectors.allSatisfy { $0.closed != nil } }
        #expect(collectors.allSatisfy { $0.closed?.code == 1001 })
        #expect((0..<3).allSatisfy { server.handler($0)?.snapshot.closes.first?.code == 1001 })
    }

    @Test("200 connections at once each get their own echo")
    func manyConnections() async throws {
        let server = try TestWebSocketServer(threads: 2)
        defer { server.stop() }
        let count = 200
        let loop = server.group.next()
        let url = server.url()
        let ok = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<count {
                group.addTask {
                    let client = try await WebSocketClient.connect(url: url, timeout: .seconds(10), on: loop)
                    let message = Array("client \(index)".utf8)
                    try await client.send(text: message)
                    var echoed = false
                    for await event in client.events {
                        if case .text(let bytes) = event { echoed = bytes == message; break }
                    }
                    await client.close()
                    return echoed
                }
            }
            var all = 0
            for try await echoed in group where echoed { all += 1 }
            return all
        }
        #expect(ok == count)
        try await eventually("all closed") { server.server.connectionCount == 0 }
    }
}

@Suite("WebSocket connection guarantees", .serialized)
struct WebSocketConnectionGuaranteeTests {
    @Test("a message sent from the accept callback is held until after the 101 response")
    func sendDuringAccept() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        let server = try WebSocketServer.start(configuration: configuration, group: group, routes: { _ in nil }) { connection, _ in
            connection.sendText(Array("{\"type\":\"welcome\"}".utf8))
            return RecordingWebSocketHandler()
        }
        defer { server.shutdown(timeout: .seconds(1)) }
        let client = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(server.port)/v1/sync", on: group.next())
        let events = EventCollector(client)
        try await eventually("welcome") { events.texts == [Array("{\"type\":\"welcome\"}".utf8)] }
    }

    @Test("messages sent from another thread arrive in call order")
    func orderFromOtherThread() async throws {
        let server = try TestWebSocketServer()
        defer { server.stop() }
        let client = try await WebSocketClient.connect(url: server.url(), on: server.group.next())
        let events = EventCollector(client)
        let serverSide = try #require(server.connections.first)
        let expected = (0..<500).map { Array("message \($0)".utf8) }
        await Task.detached { for message in expected { serverSide.sendText(message) } }.value
        try await eventually("all messages") { events.texts.count == expected.count }
        #expect(events.texts == expected)
    }

    @Test("a protocol violation closes with 1002 and the handler hears it once, not clean")
    func protocolErrorReported() async throws {
        let server = try TestWebSocketServer()
        defer { server.stop() }
        let peer = try BlockingPeer(connectingTo: try server.address)
        try peer.send(rawUpgradeRequest())
        #expect(await readHead(peer).text.hasPrefix("HTTP/1.1 101"))
        // Clients must mask: an unmasked frame is a protocol error.
        try peer.send(rawFrame(opcode: 0x1, payload: Array("hi".utf8)))
        var decoder = WebSocketFrameDecoder(role: .client)
        let rest = await peer.receiveAllOffPool()
        decoder.append(rest.bytes)
        let close = try #require(try decoder.nextFrame())
        #expect(close.opcode == .close)
        #expect(close.payload.prefix(2) == [0x03, 0xEA])  // 1002
        try await eventually("handler closed") { server.handler(0)?.snapshot.closes.count == 1 }
        #expect(server.handler(0)?.snapshot.closes.first?.code == 1002)
        #expect(server.handler(0)?.snapshot.closes.first?.clean == false)
        #expect(server.handler(0)?.snapshot.texts.isEmpty == true)
    }
}
