import Foundation
import Testing
import TandemProtocol
import TandemTesting
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// What rooms report becomes events in the order it happened; `state.changed` is throttled per room.
@Suite struct WebhookEmitterTests {
    struct Harness {
        let dispatch: DispatcherHarness
        let timers = ManualTimerScheduler()
        let emitter: WebhookEmitter

        init(queue: any WebhookQueue = InMemoryWebhookQueue()) {
            let dispatch = DispatcherHarness(queue: queue)
            self.dispatch = dispatch
            emitter = WebhookEmitter(dispatcher: dispatch.dispatcher, scheduler: timers, debounce: .seconds(1),
                                     now: { DispatcherHarness.start + dispatch.clock.now.offset.totalMilliseconds }, random: SecureRandom(), logger: .discarding,
                                     clock: dispatch.clock)
        }

        func next() async -> JSONValue? { await dispatch.transport.attempts.next(timeout: .seconds(10))?.json }
    }

    static let alice = Participant(user: "alice", client: "a1", role: .host, name: "Alice", data: [:])
    static func set(_ path: String) -> PatchOp { .set(try! JSONPointer(parsing: path), 1) }

    @Test("a session: room.started before the first participant.joined, room.ended after the last participant.left, with their fields")
    func aSessionsEvents() async throws {
        let harness = Harness()
        await harness.dispatch.dispatcher.start()
        harness.emitter.joined(room: "lobby", Self.alice, first: true)
        harness.emitter.left(room: "lobby", Self.alice, last: true)
        var events: [JSONValue] = []
        for _ in 0..<4 { events.append(try #require(await harness.next())) }
        #expect(events.map { $0["type"] } == ["room.started", "participant.joined", "participant.left", "room.ended"])
        #expect(events.allSatisfy { $0["room"] == "lobby" && $0["time"] == .number(Double(DispatcherHarness.start)) })
        #expect(Set(events.compactMap { $0["id"]?.stringValue }).count == 4 && events.allSatisfy { $0["id"]?.stringValue?.count == 32 })
        #expect(events[1]["user"] == "alice" && events[1]["client"] == "a1" && events[1]["role"] == "host" && events[1]["name"] == "Alice")
        await harness.emitter.close()
        await harness.dispatch.dispatcher.shutdown()
    }

    @Test("state.changed: one per room per window, with the newest rev and every path touched (not tests); a room that ends sends its change first")
    func stateChangesAreThrottled() async throws {
        let harness = Harness()
        await harness.dispatch.dispatcher.start()
        harness.emitter.changed(room: "lobby", rev: 1, ops: [Self.set("/a")])
        harness.emitter.changed(room: "lobby", rev: 2, ops: [Self.set("/b"), .test(try JSONPointer(parsing: "/t"), 1)])
        harness.emitter.changed(room: "other", rev: 7, ops: [.move(from: try JSONPointer(parsing: "/x"), to: try JSONPointer(parsing: "/y"))])
        harness.emitter.changed(room: "lobby", rev: 3, ops: [Self.set("/a")])
        #expect(harness.timers.pendingCount == 2, "one window per room")
        harness.timers.advance(by: .seconds(1))
        var events: [JSONValue] = []
        for _ in 0..<2 { events.append(try #require(await harness.next())) }
        let lobby = try #require(events.first { $0["room"] == "lobby" })
        #expect(lobby["type"] == "state.changed" && lobby["rev"] == 3 && lobby["paths"] == ["/a", "/b"])
        #expect(events.first { $0["room"] == "other" }?["paths"] == ["/x", "/y"])

        harness.emitter.changed(room: "lobby", rev: 4, ops: [Self.set("/c")])
        harness.emitter.left(room: "lobby", Self.alice, last: true)
        var ending: [JSONValue] = []
        for _ in 0..<3 { ending.append(try #require(await harness.next())) }
        #expect(ending.map { $0["type"] } == ["state.changed", "participant.left", "room.ended"])
        #expect(ending[0]["rev"] == 4)
        harness.timers.advance(by: .seconds(1))
        await harness.emitter.close()
        await harness.dispatch.dispatcher.waitUntilIdle()
        #expect(harness.dispatch.metrics.webhooksQueued.value == 5, "the window that closed after the room ended sent nothing more")
        await harness.dispatch.dispatcher.shutdown()
    }

    @Test("a change touching more paths than listed says so")
    func manyPathsAreTruncated() async throws {
        let harness = Harness()
        await harness.dispatch.dispatcher.start()
        harness.emitter.changed(room: "lobby", rev: 1, ops: (0...WebhookEmitter.maxPaths).map { Self.set("/k\($0)") })
        await harness.emitter.close()
        let event = try #require(await harness.next())
        #expect(event["paths"]?.arrayValue?.count == WebhookEmitter.maxPaths && event["pathsTruncated"] == true)
        await harness.dispatch.dispatcher.shutdown()
    }

    @Test("long paths are listed as their ancestors that fit, so no patch can make an event a receiver refuses")
    func longPathsAreListedAsAncestors() async throws {
        let harness = Harness()
        await harness.dispatch.dispatcher.start()
        // 256 removes of missing 50 KB paths once made a 12.8 MB event.
        let long = String(repeating: "x", count: 50_000)
        let ops = (0..<WebhookEmitter.maxPaths).map { PatchOp.remove(JSONPointer(tokens: ["cart", "items", "\($0)", long])) }
        harness.emitter.changed(room: "lobby", rev: 1, ops: ops)
        await harness.emitter.close()
        let event = try #require(await harness.next())
        let listed = try #require(event["paths"]?.arrayValue)
        let paths = listed.compactMap(\.stringValue)
        #expect(paths.count == WebhookEmitter.maxPaths && paths.allSatisfy { $0.hasPrefix("/cart/items/") && $0.utf8.count <= WebhookEvent.maxPathBytes })
        #expect(event.serializedBytes().count < 64 * 1024)
        #expect(WebhookEvent.touchedPaths([.remove(JSONPointer(tokens: [long]))]) == [""], "the root is every path's ancestor")
        await harness.dispatch.dispatcher.shutdown()
    }

    @Test("events the queue refuses (a full disk) are kept and written again, with what came after, in order; none is lost")
    func aFailingQueueLosesNothing() async throws {
        let harness = Harness(queue: FailingQueue(failures: 2))
        await harness.dispatch.dispatcher.start()
        harness.emitter.joined(room: "lobby", Self.alice, first: true)
        await harness.dispatch.clock.waitForSleepers(1)
        harness.emitter.left(room: "lobby", Self.alice, last: true)
        harness.dispatch.clock.advance(by: .milliseconds(100))
        await harness.dispatch.clock.waitForSleepers(1)
        #expect(harness.dispatch.metrics.webhooksQueued.value == 0, "refused twice so far")
        harness.dispatch.clock.advance(by: .milliseconds(200))
        var types: [JSONValue?] = []
        for _ in 0..<4 { types.append(await harness.next()?["type"]) }
        #expect(types == ["room.started", "participant.joined", "participant.left", "room.ended"])
        await harness.emitter.close()
        await harness.dispatch.dispatcher.shutdown()
    }
}
