import Foundation
import Testing
import TandemProtocol
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// Webhooks from a real server to real HTTP endpoints on loopback: every event type with its fields,
/// signatures a third-party receiver verifies, retries, and a hanging endpoint that slows nobody.
@Suite struct WebhookServerTests {
    static let secret = "whsec_test"

    static func server(receiver: String, clock: ManualNumber = ManualNumber(Int64(Date().timeIntervalSince1970)),
                       _ adjust: @escaping (inout ServerConfiguration) -> Void = { _ in }) throws -> InviteServer {
        try InviteServer(clock: clock) { configuration in
            configuration.webhookURLs = [receiver]
            configuration.webhookSecret = secret
            configuration.webhookDebounce = .milliseconds(20)
            configuration.webhookRetryBase = .milliseconds(20)
            adjust(&configuration)
        }
    }

    static func welcomed(_ peer: ProtocolClient) async -> Bool {
        if case .welcome? = await peer.next(timeout: .seconds(30)) { return true }
        return false
    }

    @Test("a session's events in order, each signed: started, joined, changed, invite accepted, joined, removed, left, left, ended")
    func everyEventTypeInOrder() async throws {
        let group = try EventLoopGroup(threads: 1)
        let receiver = try WebhookReceiver(group: group)
        let harness = try Self.server(receiver: receiver.url)
        var events: [JSONValue] = []
        func expectNext(_ type: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
            let request = try #require(await receiver.next(), "no \(type) event", sourceLocation: sourceLocation)
            let signature = try #require(request.headers[WebhookSignature.header], sourceLocation: sourceLocation)
            #expect(WebhookSignature.verify(signature, body: request.body, secret: Array(Self.secret.utf8), now: harness.clock.value),
                    sourceLocation: sourceLocation)
            #expect(request.headers["Content-Type"] == "application/json" && request.headers["Tandem-Event-Id"] == request.json?["id"]?.stringValue,
                    sourceLocation: sourceLocation)
            let event = try #require(request.json, sourceLocation: sourceLocation)
            #expect(event["type"]?.stringValue == type && event["room"] == "lobby", "\(event)", sourceLocation: sourceLocation)
            events.append(event)
            return event
        }

        let alice = try await harness.connect(token: harness.token(user: "alice"), client: "alice-1")
        #expect(await Self.welcomed(alice))
        _ = try await expectNext("room.started")
        let joined = try await expectNext("participant.joined")
        #expect(joined["user"] == "alice" && joined["client"] == "alice-1" && joined["role"] == "host")
        try await alice.send(.patch(seq: 1, ops: [.set(try JSONPointer(parsing: "/cart/items"), 1), .set(try JSONPointer(parsing: "/page"), "checkout")]))
        let changed = try await expectNext("state.changed")
        #expect(changed["rev"] == 1 && changed["paths"] == ["/cart/items", "/page"])

        let accepted = try await harness.accept(try await harness.createInvite(), name: "Bob")
        let bobUser = try #require(accepted.json?["user"]?.stringValue)
        let invite = try await expectNext("invite.accepted")
        #expect(invite["user"]?.stringValue == bobUser && invite["role"] == "guest" && invite["name"] == "Bob")
        let bob = try await harness.connect(token: try #require(accepted.json?["token"]?.stringValue), client: "bob-1")
        #expect(await Self.welcomed(bob))
        #expect(try await expectNext("participant.joined")["name"] == "Bob")

        _ = try await harness.call("POST", "/v1/rooms/lobby/remove", token: harness.token(user: "alice"), json: #"{"user":"\#(bobUser)"}"#)
        let removed = try await expectNext("participant.removed")
        #expect(removed["user"]?.stringValue == bobUser && removed["by"] == "alice")
        #expect(try await expectNext("participant.left")["client"] == "bob-1")
        await alice.socket.close()
        #expect(try await expectNext("participant.left")["client"] == "alice-1")
        _ = try await expectNext("room.ended")
        #expect(Set(events.compactMap { $0["id"]?.stringValue }).count == events.count)
        #expect(events.allSatisfy { ($0["time"]?.doubleValue ?? 0) / 1_000 >= Double(harness.clock.value - 60) })
        await harness.shutdown()
        receiver.stop()
        group.shutdown()
    }

    @Test("a receiver written against Python's http.server verifies the signature of every event type with plain hmac; after three 500s the event arrives with the same id")
    func aPythonReceiverVerifiesAndRetriesAreTheSameEvent() async throws {
        let peer = try PythonPeer(script: "webhook_receiver.py", arguments: [Self.secret, "--fail", "3"])
        let port = try await peer.port()
        let harness = try Self.server(receiver: "http://127.0.0.1:\(port)/webhooks")
        let alice = try await harness.connect(token: harness.token(user: "alice"), client: "alice-1")
        #expect(await Self.welcomed(alice))
        try await alice.send(.patch(seq: 1, ops: [.set(try JSONPointer(parsing: "/page"), "cart")]))
        guard case .ack? = await alice.next(timeout: .seconds(30)) else { Issue.record("not acked"); return }
        let accepted = try await harness.accept(try await harness.createInvite(), name: "Bob")
        let bobUser = try #require(accepted.json?["user"]?.stringValue)
        let bob = try await harness.connect(token: try #require(accepted.json?["token"]?.stringValue), client: "bob-1")
        #expect(await Self.welcomed(bob))
        _ = try await harness.call("POST", "/v1/rooms/lobby/remove", token: harness.token(user: "alice"), json: #"{"user":"\#(bobUser)"}"#)
        await alice.socket.close()
        func lines() -> [JSONValue] { peer.stdout.split(separator: "\n").filter { $0.hasPrefix("{") }.compactMap { try? JSONValue.parse(Array($0.utf8)) } }
        try await eventually("9 events delivered after 3 failures", timeout: .seconds(20)) { lines().filter { $0["status"] == 200 }.count >= 9 }
        let received = lines()
        #expect(received.allSatisfy { $0["verified"] == true }, "\(received)")
        let first = received.prefix(4).compactMap { $0["event"]?["id"]?.stringValue }
        #expect(Set(first).count == 1 && received[0]["event"]?["type"] == "room.started", "the first event, tried four times: \(first)")
        let types = received.filter { $0["status"] == 200 }.map { $0["event"]?["type"]?.stringValue ?? "" }
        // Every type; the state change goes out when its window closes, so only its place before the end is fixed.
        #expect(types.filter { $0 != "state.changed" } == ["room.started", "participant.joined", "invite.accepted", "participant.joined",
                                                           "participant.removed", "participant.left", "participant.left", "room.ended"], "\(types)")
        #expect(types.firstIndex(of: "state.changed").map { $0 < types.count - 1 } == true)
        await harness.shutdown()
        peer.stop()
    }

    @Test("an endpoint that never answers slows no patch: every ack arrives while its deliveries hang")
    func aHangingEndpointSlowsNoPatch() async throws {
        let group = try EventLoopGroup(threads: 1)
        let receiver = try WebhookReceiver(group: group) { _ in nil }
        let harness = try Self.server(receiver: receiver.url) {
            $0.webhookDebounce = .milliseconds(0)
            $0.rateLimit = 0
        }
        let alice = try await harness.connect(token: harness.token(user: "alice"), client: "alice-1")
        #expect(await Self.welcomed(alice))
        for seq in 1...200 { try await alice.send(.patch(seq: Int64(seq), ops: [.set(try JSONPointer(parsing: "/n"), .number(Double(seq)))])) }
        var acked = 0
        while acked < 200, let message = await alice.next(timeout: .seconds(30)) {
            if case .ack = message { acked += 1 }
        }
        // Every ack came while no delivery had been answered: acks never wait for an endpoint (what it
        // costs in latency is measured by `bench relays` with tandem-webhook-hanging).
        #expect(acked == 200)
        #expect(await receiver.next() != nil, "the endpoint was tried")
        #expect(harness.server.metrics.webhooksDelivered.value == 0)
        await alice.socket.close()
        await harness.shutdown()
        receiver.stop()
        group.shutdown()
    }

    @Test("an https:// endpoint of a private CA gets the events with --webhook-ca; without it the certificate is refused and nothing is delivered")
    func httpsEndpointsOfAPrivateCA() async throws {
        let certificates = try TestCertificates.forTests()
        let group = try EventLoopGroup(threads: 1)
        let receiver = try WebhookReceiver(group: group, tls: try TLSContext(.server(certificateChain: certificates.serverChain, privateKey: certificates.serverKey)))
        #expect(receiver.url.hasPrefix("https://"))
        let trusting = try Self.server(receiver: receiver.url) { $0.webhookCAFile = certificates.caFile }
        let alice = try await trusting.connect(token: trusting.token(user: "alice"), client: "alice-1")
        #expect(await Self.welcomed(alice))
        #expect(await receiver.next()?.json?["type"] == "room.started")
        await alice.socket.close()
        await trusting.shutdown()

        let untrusting = try Self.server(receiver: receiver.url)
        let bob = try await untrusting.connect(token: untrusting.token(user: "bob"), client: "bob-1")
        #expect(await Self.welcomed(bob))
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while untrusting.server.metrics.webhooksRetried.value == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(untrusting.server.metrics.webhooksRetried.value > 0 && untrusting.server.metrics.webhooksDelivered.value == 0)
        await bob.socket.close()
        await untrusting.shutdown()
        receiver.stop()
        group.shutdown()
    }

    @Test("a shutdown reports whoever is still connected as left and the room as ended, before the server stops")
    func aShutdownEndsTheSessions() async throws {
        let group = try EventLoopGroup(threads: 1)
        let receiver = try WebhookReceiver(group: group)
        let harness = try Self.server(receiver: receiver.url)
        let alice = try await harness.connect(token: harness.token(user: "alice"), client: "alice-1")
        #expect(await Self.welcomed(alice))
        let bob = try await harness.connect(token: harness.token(user: "bob", role: .guest), client: "bob-1")
        #expect(await Self.welcomed(bob))
        var types: [String] = []
        while types.count < 3, let request = await receiver.next() { types.append(request.json?["type"]?.stringValue ?? "") }
        #expect(types == ["room.started", "participant.joined", "participant.joined"])
        await harness.shutdown()
        var ending: [JSONValue] = []
        while ending.count < 3, let request = await receiver.next() { ending.append(request.json ?? .null) }
        #expect(ending.map { $0["type"]?.stringValue ?? "" } == ["participant.left", "participant.left", "room.ended"])
        #expect(Set(ending.prefix(2).compactMap { $0["client"]?.stringValue }) == ["alice-1", "bob-1"])
        receiver.stop()
        group.shutdown()
    }
}
