/// Where deliveries wait until their endpoint took them: written before the first try, removed once
/// delivered or dropped, so a crash or restart loses none (a delivery in flight at the crash is sent
/// again: at-least-once). Its calls may wait (a queue in Redis); the dispatcher makes them one at a
/// time per lane.
package protocol WebhookQueue: Sendable {
    /// Adds deliveries, durably, in order; returns them with their `seq`.
    func add(_ deliveries: [WebhookDelivery]) async throws(WebhookQueueError) -> [WebhookDelivery]
    /// Removes a delivered or dropped delivery.
    func remove(seq: Int64) async throws(WebhookQueueError)
    /// Records a failed try and when the next one is due.
    func reschedule(seq: Int64, failures: Int, due: Int64) async throws(WebhookQueueError)
    /// Every waiting delivery, in `seq` order (at start).
    func pending() async throws(WebhookQueueError) -> [WebhookDelivery]
}

/// Why the webhook queue could not be read or written.
package struct WebhookQueueError: Error, Sendable, Equatable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
