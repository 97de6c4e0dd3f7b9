import Foundation
import Synchronization
import Testing
import TandemProtocol
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// Webhooks of the real `tandem serve` binary: events queued while the endpoint is down survive a
/// SIGKILL and arrive, in order and once delivered, after the restart.
@Suite(.serialized) struct WebhookProcessTests {
    static let secret = "webhook-process-test"

    final class Switch: Sendable {
        let up = Atomic(false)
    }

    @Test func eventsQueuedWhileTheEndpointIsDownSurviveKillDashNine() async throws {
        let data = SyncServerTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let endpoint = Switch()
        let receiver = try WebhookReceiver(group: group) { _ in endpoint.up.load(ordering: .relaxed) ? 200 : 503 }
        defer { receiver.stop() }
        let arguments = ["--webhook", receiver.url, "--webhook-retry-base", "50", "--webhook-debounce", "10"]
        let (first, url) = try await offload { try ServeProcess.serve(data: data, secret: Self.secret, extra: arguments) }
        let token = TokenVerifier(secret: Array(Self.secret.utf8), hmac: { Digest.hmacSHA256(key: $0, message: $1) }, now: { Int64(Date().timeIntervalSince1970) })
            .mint(TokenClaims(sub: "alice", room: "lobby", role: .host, exp: Int64(Date().timeIntervalSince1970) + 600))
        let alice = try await ProtocolClient.connect(url, loop: group.next())
        try await alice.send(.hello(Hello(token: token, client: "alice-1")))
        guard case .welcome? = await alice.next(timeout: .seconds(30)) else { Issue.record("not welcomed"); return }
        try await alice.send(.patch(seq: 1, ops: [.set(try JSONPointer(parsing: "/x"), 1)]))
        guard case .ack? = await alice.next(timeout: .seconds(30)) else { Issue.record("not acked"); return }
        await alice.socket.close()
        // Five events queued (started, joined, changed, left, ended); the endpoint refuses the first one meanwhile.
        let metrics = "http://127.0.0.1:\(ServeProcess.port(of: url) ?? 0)/metrics"
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while ContinuousClock.now < deadline {
            let text = (try? await HTTPClient.send(method: "GET", url: metrics, on: group.next())).map { String(decoding: $0.body, as: UTF8.self) } ?? ""
            if text.contains("tandem_webhooks_queued_total 5") { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await receiver.next()?.json?["type"] == "room.started")
        kill(first.processIdentifier, SIGKILL)
        try await offload { first.waitUntilExit() }

        endpoint.up.store(true, ordering: .relaxed)
        let (second, _) = try await offload { try ServeProcess.serve(data: data, secret: Self.secret, extra: arguments) }
        defer { second.terminate() }
        var delivered: [JSONValue] = []
        while delivered.count < 5, let request = await receiver.next() {
            // Tries made before the switch (refused) are repeated after it: keep what was answered 200 only, once per id.
            if let event = request.json, !delivered.contains(where: { $0["id"] == event["id"] }) { delivered.append(event) }
        }
        #expect(delivered.map { $0["type"]?.stringValue ?? "" } == ["room.started", "participant.joined", "state.changed", "participant.left", "room.ended"])
        #expect(delivered.allSatisfy { $0["room"] == "lobby" })
        // The secret was created in the data folder and is the same across the restart.
        let webhookSecret = try String(contentsOfFile: data + "/webhook-secret", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(webhookSecret.count == 64)
    }
}
