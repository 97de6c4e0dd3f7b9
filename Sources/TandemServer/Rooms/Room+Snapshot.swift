import TandemProtocol

extension Room {
    /// A loaded room as the HTTP API reads it.
    package struct Snapshot: Sendable {
        package var epoch: String
        /// The rev of `state`, every patch up to it durable.
        package var rev: Int64
        package var state: JSONValue
        /// Who is here, as in a `welcome`.
        package var participants: [Participant]
        /// The oldest rev whose patch is still stored.
        package var oldestStoredRev: Int64

        package init(epoch: String, rev: Int64, state: JSONValue, participants: [Participant], oldestStoredRev: Int64) {
            self.epoch = epoch
            self.rev = rev
            self.state = state
            self.participants = participants
            self.oldestStoredRev = oldestStoredRev
        }
    }
}
