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
    private let pump: WebhookBatchPump<WebhookFact>

    /// - Parameters:
    ///   - nodeTTL: how long each report keeps the node counted alive (ms).
    ///   - now: unix ms.
    ///   - random: the events' ids.
    init(log: RedisWebhookLog, nodeID: String, nodeTTL: Int64, now: @escaping @Sendable () -> Int64, random: any RandomByteSource,
         logger: Logger, clock: any Clock<Duration> = ContinuousClock()) {
        pump = WebhookBatchPump(what: "facts", logger: logger, clock: clock) { facts in
            let at = now()
            try await log.report(facts, node: nodeID, now: at, nodeExpiry: at + nodeTTL, idPrefix: Hex.lowercase(random.bytes(count: 10)))
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
        await pump.close()
    }

    private func append(_ fact: WebhookFact) {
        pump.update { facts in
            if let index = facts.lastIndex(where: { $0.room == fact.room }), facts[index].absorb(fact) { return true }
            facts.append(fact)
            return true
        }
    }
}
