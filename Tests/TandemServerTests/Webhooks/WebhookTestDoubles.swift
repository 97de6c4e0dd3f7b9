import Foundation
import Testing
import Synchronization
import TandemProtocol
import TandemTesting
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// One try a `ScriptedTransport` saw.
struct WebhookAttempt: Sendable {
    var url: String
    var headers: HTTPHeaders
    var body: [UInt8]
    /// The manual clock's time of the try.
    var at: Duration

    var json: JSONValue? { try? JSONValue.parse(body) }
}

/// A transport that answers from a script: `respond` gets the try's number for its event id (1 for the
/// first try) and says what the endpoint answered.
final class ScriptedTransport: WebhookTransport {
    let attempts = Mailbox<WebhookAttempt>()
    private let tries = Mutex<[String: Int]>([:])
    private let clock: ManualClock
    private let respond: @Sendable (_ attempt: WebhookAttempt, _ try: Int) async -> WebhookTransportResult

    init(clock: ManualClock, respond: @escaping @Sendable (_ attempt: WebhookAttempt, _ try: Int) async -> WebhookTransportResult = { _, _ in .status(200) }) {
        self.clock = clock
        self.respond = respond
    }

    func post(url: String, headers: HTTPHeaders, body: [UInt8], timeout: Duration) async -> WebhookTransportResult {
        let attempt = WebhookAttempt(url: url, headers: headers, body: body, at: clock.now.offset)
        let id = headers["Tandem-Event-Id"] ?? ""
        let number = tries.withLock { tries in
            tries[id, default: 0] += 1
            return tries[id]!
        }
        attempts.push(attempt)
        return await respond(attempt, number)
    }
}

/// Random bytes that are always `byte`: deterministic jitter (0x80: about half of each bound).
struct FixedBytes: RandomByteSource {
    var byte: UInt8 = 0x80
    func bytes(count: Int) -> [UInt8] { Array(repeating: byte, count: count) }
}

/// A dispatcher on a manual clock whose wall clock starts at `start` ms and follows the manual clock.
struct DispatcherHarness {
    static let start: Int64 = 1_750_000_000_000
    let clock = ManualClock()
    let metrics = ServerMetrics()
    let transport: ScriptedTransport
    let dispatcher: WebhookDispatcher
    let queue: any WebhookQueue

    init(endpoints: [String] = ["http://receiver.test/hook"], retry: WebhookRetryPolicy = WebhookRetryPolicy(), maxConcurrent: Int = 32,
         queue: any WebhookQueue = InMemoryWebhookQueue(), resuming: [WebhookDelivery] = [],
         respond: @escaping @Sendable (_ attempt: WebhookAttempt, _ try: Int) async -> WebhookTransportResult = { _, _ in .status(200) }) {
        let clock = clock
        transport = ScriptedTransport(clock: clock, respond: respond)
        self.queue = queue
        dispatcher = WebhookDispatcher(settings: .init(endpoints: endpoints, secret: Array("whsec".utf8), retry: retry, maxConcurrentPerEndpoint: maxConcurrent), queue: queue,
                                       transport: transport, clock: clock, now: { Self.start + clock.now.offset.totalMilliseconds },
                                       random: FixedBytes(), metrics: metrics, logger: .discarding, resuming: resuming)
    }

    static func event(_ id: String, room: String = "lobby", kind: WebhookEvent.Kind = .participantJoined, at offset: Int64 = 0) -> WebhookEvent {
        WebhookEvent(id: id, kind: kind, time: start + offset, room: room, fields: ["user": "u"])
    }
}

extension WebhookDispatcher {
    /// Waits (up to 10 s, then records an issue) until nothing is waiting for delivery.
    func waitUntilIdle(sourceLocation: SourceLocation = #_sourceLocation) async {
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while pendingCount > 0 {
            guard ContinuousClock.now < deadline else {
                Issue.record("deliveries still pending: \(pendingCount)", sourceLocation: sourceLocation)
                return
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }
}

/// Holds tries until the test opens it, one at a time.
final class TryGate: Sendable {
    private let waiting = Mutex<[CheckedContinuation<Void, Never>]>([])

    func wait() async {
        await withCheckedContinuation { continuation in waiting.withLock { $0.append(continuation) } }
    }

    /// Lets the oldest held try answer.
    func openOne() {
        let next: CheckedContinuation<Void, Never>? = waiting.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        next?.resume()
    }

    func openAll() {
        let all = waiting.withLock { waiting in
            defer { waiting.removeAll() }
            return waiting
        }
        for continuation in all { continuation.resume() }
    }
}

/// A queue whose first `failures` adds fail (a full disk), then works.
final class FailingQueue: WebhookQueue {
    private let inner = InMemoryWebhookQueue()
    private let left: Mutex<Int>

    init(failures: Int) { left = Mutex(failures) }

    func add(_ deliveries: [WebhookDelivery]) throws(WebhookQueueError) -> [WebhookDelivery] {
        let fails = left.withLock { left in
            defer { left = max(0, left - 1) }
            return left > 0
        }
        if fails { throw WebhookQueueError("disk full") }
        return try inner.add(deliveries)
    }

    func remove(seq: Int64) throws(WebhookQueueError) { try inner.remove(seq: seq) }
    func reschedule(seq: Int64, failures: Int, due: Int64) throws(WebhookQueueError) { try inner.reschedule(seq: seq, failures: failures, due: due) }
    func pending() throws(WebhookQueueError) -> [WebhookDelivery] { try inner.pending() }
}
