import TandemSynchronization

/// A queue in memory, for `--in-memory` servers and tests: nothing survives the process.
package final class InMemoryWebhookQueue: WebhookQueue {
    private struct State {
        var deliveries: [Int64: WebhookDelivery] = [:]
        var nextSeq: Int64 = 1
    }

    private let state = Locked(State())

    package init() {}

    package func add(_ deliveries: [WebhookDelivery]) throws(WebhookQueueError) -> [WebhookDelivery] {
        state.withLock { state in
            deliveries.map { delivery in
                var stored = delivery
                stored.seq = state.nextSeq
                state.nextSeq += 1
                state.deliveries[stored.seq] = stored
                return stored
            }
        }
    }

    package func remove(seq: Int64) throws(WebhookQueueError) {
        _ = state.withLock { $0.deliveries.removeValue(forKey: seq) }
    }

    package func reschedule(seq: Int64, failures: Int, due: Int64) throws(WebhookQueueError) {
        state.withLock { state in
            state.deliveries[seq]?.failures = failures
            state.deliveries[seq]?.due = due
        }
    }

    package func pending() throws(WebhookQueueError) -> [WebhookDelivery] {
        state.withLock { $0.deliveries.values.sorted { $0.seq < $1.seq } }
    }
}
