import Foundation
import Testing
import TandemProtocol
import TandemTesting
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// Delivery: signed, retried with bounded backoff, in order per room, never held up by another room,
/// dropped after the retry window, and resumed from the queue after a restart.
@Suite struct WebhookDispatcherTests {
    @Test("a receiver that answers 500 three times then 200 gets the event once delivered, the same id and body every try, each wait within its bound")
    func retriesUntilDelivered() async throws {
        let harness = DispatcherHarness { _, attempt in attempt <= 3 ? .status(500) : .status(200) }
        await harness.dispatcher.start()
        try await harness.dispatcher.submit([DispatcherHarness.event("e1")])
        var tries: [WebhookAttempt] = []
        var waits: [Int64] = []
        for failures in 0..<4 {
            if failures > 0 {
                await harness.clock.waitForSleepers(1)
                let due = try #require(try await harness.queue.pending().first?.due)
                waits.append(due - DispatcherHarness.start - tries[tries.count - 1].at.totalMilliseconds)
                harness.clock.advance(by: WebhookRetryPolicy().backoff.bound(afterFailures: failures))
            }
            tries.append(try #require(await harness.transport.attempts.next(timeout: .seconds(10))))
        }
        #expect(Set(tries.map { $0.headers["Tandem-Event-Id"] }) == ["e1"])
        #expect(Set(tries.map(\.body)).count == 1 && tries[0].json?["id"] == "e1" && tries[0].json?["type"] == "participant.joined")
        // Full jitter: each wait is its bound (1 s, 2 s, 4 s) less a uniform part of it; these random bytes draw a
        // unit of about 0.016, so each wait is about 98.4 % of its bound.
        #expect(waits == [984, 1_968, 3_937], "\(waits)")
        await harness.dispatcher.waitUntilIdle()
        #expect(harness.metrics.webhooksDelivered.value == 1 && harness.metrics.webhooksRetried.value == 3 && harness.metrics.webhooksPending.value == 0)
        #expect(try await harness.queue.pending().isEmpty)
        await harness.dispatcher.shutdown()
    }

    @Test("each try is signed afresh: t is the send time, v1 the HMAC of \"t.body\", which a receiver verifies and a changed body fails")
    func everyTryIsSigned() async throws {
        let harness = DispatcherHarness()
        await harness.dispatcher.start()
        try await harness.dispatcher.submit([DispatcherHarness.event("e1")])
        let attempt = try #require(await harness.transport.attempts.next(timeout: .seconds(10)))
        let signature = try #require(attempt.headers[WebhookSignature.header])
        #expect(signature.hasPrefix("t=\(DispatcherHarness.start / 1_000),v1="))
        let now = DispatcherHarness.start / 1_000
        #expect(WebhookSignature.verify(signature, body: attempt.body, secret: Array("whsec".utf8), now: now))
        #expect(!WebhookSignature.verify(signature, body: attempt.body + [0x20], secret: Array("whsec".utf8), now: now))
        #expect(!WebhookSignature.verify(signature, body: attempt.body, secret: Array("other".utf8), now: now))
        #expect(!WebhookSignature.verify(signature, body: attempt.body, secret: Array("whsec".utf8), now: now + 301), "an old t is a replay")
        #expect(attempt.headers["Content-Type"] == "application/json")
        await harness.dispatcher.shutdown()
    }

    @Test("a room's next event waits for the one before it, through its retries; another room's events go meanwhile")
    func orderPerRoomUnderRetries() async throws {
        let harness = DispatcherHarness { attempt, number in
            attempt.json?["id"] == "a1" && number <= 2 ? .status(503) : .status(204)
        }
        await harness.dispatcher.start()
        try await harness.dispatcher.submit([DispatcherHarness.event("a1", room: "a"), DispatcherHarness.event("a2", room: "a"),
                                             DispatcherHarness.event("b1", room: "b"), DispatcherHarness.event("b2", room: "b")])
        var seen: [String] = []
        for _ in 0..<3 { seen.append(try #require(await harness.transport.attempts.next(timeout: .seconds(10))).json?["id"]?.stringValue ?? "") }
        // a1 failed once; room b went on: both of its events are delivered before a1's second try.
        #expect(seen.filter { $0 != "a1" } == ["b1", "b2"] && seen.filter { $0 == "a1" }.count == 1, "\(seen)")
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(1))
        #expect(await harness.transport.attempts.next(timeout: .seconds(10))?.json?["id"] == "a1")
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(2))
        #expect(await harness.transport.attempts.next(timeout: .seconds(10))?.json?["id"] == "a1")
        #expect(await harness.transport.attempts.next(timeout: .seconds(10))?.json?["id"] == "a2")
        await harness.dispatcher.waitUntilIdle()
        await harness.dispatcher.shutdown()
    }

    @Test("an endpoint that hangs holds up only its own lanes: the other endpoint gets every event at once")
    func aHangingEndpointBlocksNothingElse() async throws {
        let harness = DispatcherHarness(endpoints: ["http://slow.test/", "http://fast.test/"]) { attempt, _ in
            if attempt.url.contains("slow") { try? await Task.sleep(for: .seconds(3_600)) }
            return .status(200)
        }
        await harness.dispatcher.start()
        try await harness.dispatcher.submit((1...5).map { DispatcherHarness.event("e\($0)") })
        var fast: [String] = []
        while fast.count < 5, let attempt = await harness.transport.attempts.next(timeout: .seconds(10)) {
            if attempt.url.contains("fast") { fast.append(attempt.json?["id"]?.stringValue ?? "") }
        }
        #expect(fast == ["e1", "e2", "e3", "e4", "e5"])
        #expect(harness.metrics.webhooksQueued.value == 10)
        await harness.dispatcher.shutdown()
    }

    @Test("an event still failing past the retry window is dropped and counted; the room's next event goes")
    func droppedAfterTheWindow() async throws {
        let retry = WebhookRetryPolicy(base: .seconds(1), cap: .seconds(1), maxAge: .milliseconds(1_200))
        let harness = DispatcherHarness(retry: retry) { attempt, _ in attempt.json?["id"] == "old" ? .failed("connection refused") : .status(200) }
        await harness.dispatcher.start()
        try await harness.dispatcher.submit([DispatcherHarness.event("old"), DispatcherHarness.event("next")])
        #expect(await harness.transport.attempts.next(timeout: .seconds(10))?.json?["id"] == "old")
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(1))
        #expect(await harness.transport.attempts.next(timeout: .seconds(10))?.json?["id"] == "old")
        // Tried at 0 and at 1 s; the next try would come 500 ms later, past 1.2 s of age: dropped.
        #expect(await harness.transport.attempts.next(timeout: .seconds(10))?.json?["id"] == "next")
        await harness.dispatcher.waitUntilIdle()
        #expect(harness.metrics.webhooksDropped.value == 1 && harness.metrics.webhooksDelivered.value == 1)
        await harness.dispatcher.shutdown()
    }

    @Test("what the queue holds survives a restart: a new dispatcher delivers it first, in order, with the same ids")
    func theQueueOutlivesTheDispatcher() async throws {
        let path = SyncServerTests.temporaryDirectory() + "/webhooks.sqlite"
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let down = DispatcherHarness(queue: try SQLiteWebhookQueue(path: path)) { _, _ in .failed("connection refused") }
        await down.dispatcher.start()
        try await down.dispatcher.submit([DispatcherHarness.event("e1"), DispatcherHarness.event("e2")])
        #expect(await down.transport.attempts.next(timeout: .seconds(10))?.json?["id"] == "e1")
        await down.clock.waitForSleepers(1)
        await down.dispatcher.shutdown()

        let queue = try SQLiteWebhookQueue(path: path)
        let pending = try queue.pending()
        #expect(pending.map(\.eventID) == ["e1", "e2"] && pending.first?.failures == 1)
        let up = DispatcherHarness(queue: queue, resuming: pending)
        try await up.dispatcher.submit([DispatcherHarness.event("e3")])
        await up.dispatcher.start()
        // e1's retry is due 500 ms after its failure: it waits for that, then goes first.
        await up.clock.waitForSleepers(1)
        up.clock.advance(by: .seconds(1))
        var delivered: [String] = []
        for _ in 0..<3 { delivered.append(try #require(await up.transport.attempts.next(timeout: .seconds(10))).json?["id"]?.stringValue ?? "") }
        #expect(delivered == ["e1", "e2", "e3"])
        await up.dispatcher.waitUntilIdle()
        #expect(try queue.pending().isEmpty)
        await up.dispatcher.shutdown()
    }

    @Test("at most the configured tries are in flight to one endpoint; the next lane goes when one ends")
    func triesPerEndpointAreCapped() async throws {
        let gate = TryGate()
        let harness = DispatcherHarness(maxConcurrent: 3) { _, _ in
            await gate.wait()
            return .status(200)
        }
        await harness.dispatcher.start()
        try await harness.dispatcher.submit((1...10).map { DispatcherHarness.event("e\($0)", room: "room\($0)") })
        for _ in 0..<3 { #expect(await harness.transport.attempts.next(timeout: .seconds(10)) != nil) }
        #expect(await harness.transport.attempts.next(timeout: .milliseconds(200)) == nil, "a fourth try while three are in flight")
        gate.openOne()
        #expect(await harness.transport.attempts.next(timeout: .seconds(10)) != nil)
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while await harness.dispatcher.pendingCount > 0, ContinuousClock.now < deadline {
            gate.openAll()
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(harness.metrics.webhooksDelivered.value == 10)
        await harness.dispatcher.shutdown()
    }
}
