import TandemRedis
import TandemServer

/// The delivery queue of a cluster, in Redis, as the lease holder's dispatcher uses it. Deliveries
/// are made in Redis by the lease holder's tick, from the events the scripts decided, so `add` is
/// refused: nothing submits events to a cluster's dispatcher.
struct RedisWebhookQueue: WebhookQueue {
    let log: RedisWebhookLog

    func add(_ deliveries: [WebhookDelivery]) async throws(WebhookQueueError) -> [WebhookDelivery] {
        throw WebhookQueueError("a cluster's deliveries are made in Redis from the events its nodes report")
    }

    func remove(seq: Int64) async throws(WebhookQueueError) {
        do throws(RedisError) {
            try await log.remove(seq: seq)
        } catch {
            throw WebhookQueueError("Redis: \(error.description)")
        }
    }

    func reschedule(seq: Int64, failures: Int, due: Int64) async throws(WebhookQueueError) {
        do throws(RedisError) {
            try await log.reschedule(seq: seq, failures: failures, due: due)
        } catch {
            throw WebhookQueueError("Redis: \(error.description)")
        }
    }

    func pending() async throws(WebhookQueueError) -> [WebhookDelivery] {
        do throws(RedisError) {
            return try await log.pending()
        } catch {
            throw WebhookQueueError("Redis: \(error.description)")
        }
    }
}
