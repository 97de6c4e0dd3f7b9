import Synchronization
import TandemProtocol
import TandemRedis
import TandemServer
import TandemWire

/// A node's side of a cluster's webhooks: turns what its rooms report into facts and sends them to
/// Redis in order, where the report script decides the events for the whole cluster. Calls never
/// wait: facts are buffered under a lock and one task sends them, a batch per round trip; the
/// changes of a room waiting in the buffer merge into one (nothing of that room reported between).
///
/// Only patches authored through this node are reported as changes: every node applies every patch
/// of the rooms it serves, and the author's node speaks for it. A batch Redis refuses is sent again
/// (waits doubling from 100 ms to 5 s) with what came after it; only one still failing at shutdown
/// is lost, logged.
final class ClusterWebhookReporter: WebhookReporter {
    private struct State {
        var facts: [WebhookFact] = []
        var closed = false
    }

    /// The state, in a box of its own so the pump task can hold it without holding the reporter.
    private final class Box: Sendable {
        let state = Mutex(State())
    }

    private let box = Box()
    private let signal: AsyncStream<Void>.Continuation
    private let pump: Task<Void, Never>

    /// - Parameters:
    ///   - nodeTTL: how long each report keeps the node counted alive (ms).
    ///   - now: unix ms.
    ///   - random: the events' ids.
    init(log: RedisWebhookLog, nodeID: String, nodeTTL: Int64, now: @escaping @Sendable () -> Int64, random: any RandomByteSource,
         logger: Logger, clock: any Clock<Duration> = ContinuousClock()) {
        let (signals, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.signal = signal
        let box = box
        pump = Task {
            var iterator = signals.makeAsyncIterator()
            var pending: [WebhookFact] = []
            var wait = Duration.milliseconds(100)
            while true {
                if pending.isEmpty, await iterator.next() == nil { return }
                pending += box.state.withLock { state in
                    defer { state.facts.removeAll(keepingCapacity: true) }
                    return state.facts
                }
                guard !pending.isEmpty else { continue }
                do throws(RedisError) {
                    let at = now()
                    try await log.report(pending, node: nodeID, now: at, nodeExpiry: at + nodeTTL, idPrefix: Hex.lowercase(random.bytes(count: 10)))
                    pending = []
                    wait = .milliseconds(100)
                } catch {
                    logger.error("webhook.report_failed", LogField("facts", "\(pending.count)"), LogField("error", error.description))
                    if box.state.withLock({ $0.closed }) {
                        logger.error("webhook.lost", LogField("facts", "\(pending.count)"), LogField("error", "Redis still fails at shutdown"))
                        return
                    }
                    try? await clock.sleep(for: wait)
                    wait = min(wait * 2, WebhookEmitter.maxQueueRetryWait)
                }
            }
        }
    }

    func joined(room: String, _ participant: Participant, first: Bool) {
        append(.joined(room: room, participant: participant))
    }

    func left(room: String, _ participant: Participant, last: Bool) {
        append(.left(room: room, participant: participant))
    }

    func changed(room: String, rev: Int64, ops: [PatchOp], authoredHere: Bool) {
        guard authoredHere else { return }
        var paths = Set<String>()
        var truncated = false
        for path in WebhookEvent.touchedPaths(ops) where !paths.contains(path) {
            if paths.count < WebhookEmitter.maxPaths { paths.insert(path) } else { truncated = true }
        }
        append(.changed(room: room, rev: rev, paths: paths, truncated: truncated))
    }

    func removed(room: String, user: String, by host: String) {
        append(.event(room: room, kind: .participantRemoved, fields: ["user": .string(user), "by": .string(host)]))
    }

    func inviteAccepted(room: String, user: String, role: Role, name: String?) {
        var fields: [String: JSONValue] = ["user": .string(user), "role": .string(role.rawValue)]
        if let name { fields["name"] = .string(name) }
        append(.event(room: room, kind: .inviteAccepted, fields: fields))
    }

    /// Stops taking facts and waits until every one reported is in Redis (or given up on).
    func close() async {
        box.state.withLock { $0.closed = true }
        signal.yield()
        signal.finish()
        await pump.value
    }

    private func append(_ fact: WebhookFact) {
        let queued: Bool = box.state.withLock { state in
            guard !state.closed else { return false }
            if let index = state.facts.lastIndex(where: { $0.room == fact.room }), state.facts[index].absorb(fact) { return true }
            state.facts.append(fact)
            return true
        }
        if queued { signal.yield() }
    }
}
