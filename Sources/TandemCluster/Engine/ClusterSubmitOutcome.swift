/// How a node's submission of a patch ended, once the node's own replica has folded it.
enum ClusterSubmitOutcome: Sendable, Equatable {
    /// Sequenced at `rev` and folded into this node's replica: the author may be acked.
    case applied(rev: Int64)
    /// The client's seq had been applied before, at `rev`.
    case duplicate(rev: Int64)
    /// Not applied (semantic or structural); nothing changed.
    case rejected(reason: String)
    /// Not applied: the submission named an `ifRev` and the room is at `rev`.
    case conflict(rev: Int64)
}
