/// One patch a node hands to the room sequencer, in a batch of its room's patches.
package struct SequencerEntry: Sendable, Equatable {
    /// The author's client id.
    package var client: String
    /// The author's user id.
    package var user: String
    /// The client's seq (0: Redis gives the client's next one).
    package var seq: Int64
    /// The ops, a JSON array.
    package var ops: [UInt8]
    /// Why the node found the patch invalid against its replica (nil: valid); the script then answers
    /// `rejected` with it, after the exactly-once and base checks.
    package var localRejection: String?

    /// An entry to sequence.
    package init(client: String, user: String, seq: Int64, ops: [UInt8], localRejection: String? = nil) {
        self.client = client
        self.user = user
        self.seq = seq
        self.ops = ops
        self.localRejection = localRejection
    }
}
