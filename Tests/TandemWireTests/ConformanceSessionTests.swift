import Testing
import TandemWire

/// A client and a server state machine talking to each other through an in-memory wire,
/// with the wire cut into pieces of every size: messages, pings and the close handshake
/// initiated from either side.
@Suite struct ConformanceSessionTests {
    /// Delivers `bytes` to `machine` in pieces of `chunk` bytes and merges the results.
    private func deliver(_ bytes: [UInt8], to machine: inout WebSocketConnectionStateMachine, chunk: Int) -> WebSocketReceiveResult {
        var results: [WebSocketReceiveResult] = []
        var offset = 0
        while offset < bytes.count {
            results.append(machine.receive(Array(bytes[offset..<min(offset + chunk, bytes.count)])))
            offset += chunk
        }
        return merged(results)
    }

    @Test(arguments: [1, 2, 3, 7, 64, 100_000])
    func messagesPingsAndServerInitiatedCloseFlowBothWays(chunk: Int) throws {
        var client = WebSocketConnectionStateMachine(role: .client)
        var server = WebSocketConnectionStateMachine(role: .server)

        var toServer: [UInt8] = []
        try client.sendText("{\"type\":\"hello\"}", into: &toServer)
        try client.sendBinary([0, 1, 2, 255], into: &toServer)
        try client.sendPing([7], into: &toServer)
        let atServer = deliver(toServer, to: &server, chunk: chunk)
        #expect(atServer.events == [.text("{\"type\":\"hello\"}"), .binary([0, 1, 2, 255]), .ping([7])])

        let atClient = deliver(atServer.bytesToWrite, to: &client, chunk: chunk)
        #expect(atClient.events == [.pong([7])])

        var toClient: [UInt8] = []
        try server.sendText("{\"type\":\"welcome\"}", into: &toClient)
        server.close(code: .goingAway, reason: "restart", into: &toClient)
        let closing = deliver(toClient, to: &client, chunk: chunk)
        #expect(closing.events == [.text("{\"type\":\"welcome\"}"), .close(code: .goingAway, reason: "restart")])
        #expect(closing.closeSocket && client.state == .closed)

        let done = deliver(closing.bytesToWrite, to: &server, chunk: chunk)
        #expect(done.events == [.close(code: .goingAway, reason: "")])
        #expect(done.closeSocket && done.bytesToWrite.isEmpty && server.state == .closed)
    }

    @Test func clientInitiatedCloseCompletesOnBothSides() throws {
        var client = WebSocketConnectionStateMachine(role: .client)
        var server = WebSocketConnectionStateMachine(role: .server)
        var wire: [UInt8] = []
        client.close(code: .normalClosure, reason: "done", into: &wire)
        let atServer = server.receive(wire)
        #expect(atServer.events == [.close(code: .normalClosure, reason: "done")])
        #expect(atServer.closeSocket)
        let atClient = client.receive(atServer.bytesToWrite)
        #expect(atClient.events == [.close(code: .normalClosure, reason: "")])
        #expect(atClient.closeSocket && client.state == .closed)
    }

    @Test func oneServerEncodingIsValidForEveryClient() throws {
        var shared: [UInt8] = []
        WebSocketFrameEncoder().encodeText("{\"type\":\"patch\",\"rev\":1}", masked: false, into: &shared)
        for _ in 0..<3 {
            var client = WebSocketConnectionStateMachine(role: .client)
            #expect(client.receive(shared).events == [.text("{\"type\":\"patch\",\"rev\":1}")])
        }
    }

    @Test func serverFailingAClientSendsTheCloseCodeTheClientSees() throws {
        var client = WebSocketConnectionStateMachine(role: .client)
        var server = WebSocketConnectionStateMachine(role: .server, maxMessageSize: 10)
        var wire: [UInt8] = []
        try client.sendText(String(repeating: "x", count: 11), into: &wire)
        let atServer = server.receive(wire)
        #expect(atServer.error == .messageTooBig(limit: 10))
        let atClient = client.receive(atServer.bytesToWrite)
        #expect(atClient.events.first == .close(code: .messageTooBig, reason: WebSocketProtocolError.messageTooBig(limit: 10).description))
    }
}
