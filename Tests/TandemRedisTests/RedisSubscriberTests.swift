import Synchronization
import Testing
import TandemRedis
import TandemTestSupport
import TandemWire

@Suite("Redis subscriber (sharded Pub/Sub) against redis-server", .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct RedisSubscriberTests {
    @Test("a subscription is confirmed, then every message published to it arrives in order, binary-safe; after unsubscribing none does")
    func subscribeReceiveUnsubscribe() async throws {
        try await RedisTestContext.with { context in
            let pushes = Mailbox<RedisSubscriber.Push>()
            let subscriber = try await RedisSubscriber.connect(to: context.endpoint, on: context.group.next(),
                                                               receive: { pushes.push($0) }, closed: { _ in })
            subscriber.subscribe(["{a}:changes", "{b}:changes"])
            try await Self.waitUntil { pushes.all.count == 2 }
            #expect(pushes.all == [.subscribed(channel: "{a}:changes"), .subscribed(channel: "{b}:changes")])
            let publisher = try await context.connect()
            for payload in [[0, 13, 10, 255], [1], []] as [[UInt8]] {
                #expect(try await publisher.send(["SPUBLISH", "{a}:changes", RedisArgument(bytes: payload)]) == .integer(1))
            }
            subscriber.unsubscribe(["{a}:changes"])
            try await Self.waitUntil { pushes.all.count == 6 }
            #expect(try await publisher.send(["SPUBLISH", "{a}:changes", "late"]) == .integer(0))
            #expect(try await publisher.send(["SPUBLISH", "{b}:changes", "b"]) == .integer(1))
            try await Self.waitUntil { pushes.all.count == 7 }
            #expect(Array(pushes.all.dropFirst(2)) == [
                .message(channel: "{a}:changes", payload: [0, 13, 10, 255]), .message(channel: "{a}:changes", payload: [1]),
                .message(channel: "{a}:changes", payload: []), .unsubscribed(channel: "{a}:changes"), .message(channel: "{b}:changes", payload: Array("b".utf8)),
            ])
            subscriber.close()
        }
    }

    @Test("when Redis drops the connection, `closed` is called once with the loss and the subscriber stays closed")
    func aKilledConnectionIsReported() async throws {
        try await RedisTestContext.with { context in
            let closures = Mailbox<RedisError>()
            let subscriber = try await RedisSubscriber.connect(to: context.endpoint, on: context.group.next(),
                                                               receive: { _ in }, closed: { closures.push($0) })
            subscriber.subscribe(["{a}:changes"])
            let admin = try await context.connect()
            try await Self.waitUntil { (try? await admin.send(["PUBSUB", "SHARDCHANNELS"]).array?.count) == 1 }
            _ = try await admin.send(["CLIENT", "KILL", "TYPE", "pubsub"])
            try await Self.waitUntil { !closures.all.isEmpty }
            #expect(!subscriber.isOpen)
            guard case .connectionLost = closures.all.first else { Issue.record("expected connectionLost, got \(closures.all)"); return }
            subscriber.subscribe(["{b}:changes"])
            #expect(closures.all.count == 1)
        }
    }

    /// Polls a condition every few milliseconds, bounded by 30 s.
    static func waitUntil(_ condition: () async -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(30))
        while clock.now < deadline {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(2))
        }
        Issue.record("condition not met within 30 s")
    }
}
