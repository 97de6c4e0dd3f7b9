/// One event on its way to one endpoint: what the queue keeps until the endpoint took it or the event
/// grew too old.
package struct WebhookDelivery: Sendable, Equatable {
    /// The queue's order: deliveries of one room to one endpoint go in ascending `seq`.
    package var seq: Int64
    package var endpoint: String
    package var room: String
    package var eventID: String
    /// The JSON body, exactly as first written (every retry sends the same bytes).
    package var body: [UInt8]
    /// When the event happened, unix ms: its age decides when it is dropped.
    package var created: Int64
    /// Failed tries so far.
    package var failures: Int
    /// When the next try is due, unix ms.
    package var due: Int64

    package init(seq: Int64 = 0, endpoint: String, room: String, eventID: String, body: [UInt8], created: Int64, failures: Int = 0, due: Int64) {
        self.seq = seq
        self.endpoint = endpoint
        self.room = room
        self.eventID = eventID
        self.body = body
        self.created = created
        self.failures = failures
        self.due = due
    }
}
