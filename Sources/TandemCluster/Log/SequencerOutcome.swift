
/// What the sequencer did with one submitted patch.
package enum SequencerOutcome: Sendable, Equatable {
    /// Appended at `rev` (the room's new rev) in `epoch`, with `seq` (the one submitted, or the one the
    /// script gave a patch submitted with seq 0).
    case applied(epoch: String, rev: Int64, seq: Int64)
    /// The client's seq had been applied before, at `rev`; nothing changed.
    case duplicate(epoch: String, rev: Int64)
    /// The room's rev is `rev`, not the base rev the patch was checked against; catch up and retry.
    case behind(epoch: String, rev: Int64)
    /// Not applied; `reason` says which limit or rule the patch broke.
    case rejected(epoch: String, reason: String)
    /// Not applied: Redis has no trace of the room (it lost its data). Only `open` or `seed` create a
    /// room, so that a node holding the room's document can bring it back before anyone writes.
    case lost
    /// Not looked at: an earlier patch of the same batch ended otherwise than the node expected, so this
    /// one was checked against a state that does not exist. Submit it again.
    case skipped
}

extension SequencerOutcome {
    /// The script's name for the outcome (`applied`, `duplicate`, `behind`, `rejected`, `lost`, `skipped`).
    var status: String {
        switch self {
        case .applied: "applied"
        case .duplicate: "duplicate"
        case .behind: "behind"
        case .rejected: "rejected"
        case .lost: "lost"
        case .skipped: "skipped"
        }
    }

    /// The room's epoch the outcome was decided in (nil when Redis did not say: lost, skipped).
    var epoch: String? {
        switch self {
        case .applied(let epoch, _, _), .duplicate(let epoch, _), .behind(let epoch, _), .rejected(let epoch, _): epoch
        case .lost, .skipped: nil
        }
    }
}
