import TandemProtocol

/// What gives one room's patches their revs and keeps them: this server's store (`LocalRoomSequencer`)
/// or a cluster's shared log.
///
/// The room calls it under its own lock, so a sequencer never calls back into the room from inside a
/// call; what it learns later (a commit, a late answer) it reports through `RoomOutcomes`, whose calls
/// take the lock, and a shared log's folds through `ReplicatedRoom`. The room turns those into what
/// each connection sees, in rev order.
package protocol RoomSequencer: Sendable {
    /// Called once, right after the room was made and before it serves anyone: a sequencer whose
    /// outcomes arrive on their own (a cluster's log) starts delivering them to `room`.
    func attach(_ room: any ReplicatedRoom)

    /// Sequences a patch. `core` is the room's state, which a sequencer that decides revs itself
    /// advances at once (one that learns them from a shared log leaves it to the folds). The room
    /// tells the author the outcome as `SubmitDecision` says; what is learnt later goes to `outcomes`.
    func submit(_ patch: SubmittedPatch, core: inout RoomCore, outcomes: any RoomOutcomes) -> SubmitDecision

    /// The patches with rev > `after`, through `through`, that the room's memory no longer holds (a
    /// resume from further back). `completion` runs once, on any thread.
    func history(after: Int64, through: Int64, completion: @escaping @Sendable (Result<[PatchEvent], SequencingError>) -> Void)

    /// Relays a signal a participant here sent to the participants other nodes serve (nothing alone).
    func publish(_ signal: ServerMessage)

    /// A participant the others had been told of left this node (cross-node presence forgets it).
    func participantLeft(_ peer: Peer)
}

/// A patch a participant submitted, as the room hands it to its sequencer.
package struct SubmittedPatch: Sendable {
    /// The author's per-client sequence number.
    package var seq: Int64
    /// The ops, validated against the message limits, not yet against the document.
    package var ops: [PatchOp]
    /// The rev the ops were made on, when the client said (`patch.base`).
    package var base: Int64?
    /// Who sent it.
    package var author: SessionIdentity
    /// Apply only while the room is at this rev (the HTTP API's compare-and-set), else `.conflict`.
    package var ifRev: Int64? = nil
    /// A write of the HTTP API (no connection waits for it): its outcome goes to
    /// `RoomOutcomes.httpSequenced`, and a shared log may give it its author's next seq.
    package var overHTTP = false
}

/// What the room does for the author of a submitted patch.
package enum SubmitDecision: Sendable {
    /// The outcome comes later: the patch's release (`RoomOutcomes.release`, `ReplicatedRoom.fold`)
    /// acks it, or `RoomOutcomes.settle` answers it when it was not applied. The room remembers which connection waits
    /// (and, for a patch with a `base`, what was sent: an ack of other ops carries them).
    case awaiting
    /// Answer now (a reject, or the ack of a duplicate): sent after every patch applied before it.
    case answer(ServerMessage)
    /// Not applied: the patch named an `ifRev` and the room is at `rev`.
    case conflict(rev: Int64)
}

/// Why a sequencer could not give what the room asked.
package enum SequencingError: Error, Sendable, CustomStringConvertible {
    /// The store failed.
    case storage(StorageError)
    /// The history no longer reaches back that far, or is unreadable.
    case historyLost(String)
    /// The cluster could not do it.
    case cluster(String)

    package var description: String {
        switch self {
        case .storage(let error): error.description
        case .historyLost(let reason): reason
        case .cluster(let reason): reason
        }
    }
}
