import TandemProtocol

/// What a sequencer tells the room it sequences, as it learns it: a patch made durable, the answer to
/// one that was not applied, a write whose outcome is lost, a store that failed. Each call takes the
/// room's lock, so a sequencer makes none from inside `RoomSequencer.submit`.
package protocol RoomOutcomes: AnyObject, Sendable {
    /// A patch the sequencer applied to the room's core is durable: its author gets the ack, every
    /// other live connection the patch event. Calls arrive in rev order.
    func release(_ event: PatchEvent)

    /// The outcome of an awaited patch that was not applied: a reject, or the ack of a duplicate.
    func settle(_ message: ServerMessage, seq: Int64, author: Peer)

    /// An awaited patch's outcome is unknown: its author's connection is closed with `message`, so
    /// that it resends the patch after reconnecting.
    func abandon(seq: Int64, author: Peer, message: String)

    /// The outcome of the HTTP write submitted with `seq` whose rev the sequencer learns later. Applied
    /// at a rev, it is answered once that rev is released here, unless not `waitingForRelease` (this
    /// instance will never release it).
    func httpSequenced(seq: Int64, _ outcome: HTTPWriteOutcome, waitingForRelease: Bool)

    /// Storage lost a write the room's memory already holds: the room stops serving.
    func storageFailed(_ error: StorageError, rev: Int64)
}

/// A room whose patches a shared log sequences (a cluster): beside the outcomes of its own writes it
/// folds everyone's patches from the log, hears of participants and signals of other nodes, and gives
/// its copy back when the log lost the room.
package protocol ReplicatedRoom: RoomOutcomes {
    /// The room's name.
    var name: String { get }

    /// The epoch this instance serves.
    var epoch: String { get }

    /// A patch sequenced and made durable in the log, in rev order: folded into the room's core, then
    /// released like a local one. A rev the room holds already is skipped.
    /// - Throws: `RoomFoldFailure` when this copy cannot take it and must be reloaded.
    func fold(_ event: PatchEvent, epoch: String) throws(RoomFoldFailure)

    /// A signal a participant on another node sent: relayed to this node's live participants.
    func relay(_ signal: ServerMessage)

    /// The participants connected to this node that the others know of (grace periods included).
    func presentParticipants() -> [Participant]

    /// The participants other nodes announce right now; the difference to the last call becomes join,
    /// presence and leave events for this node's connections.
    func updateRemoteParticipants(_ participants: [Participant])

    /// The room's document, each author's last seq and whether it forgot any author, when the room
    /// holds anything; nil for an empty, unwritten room or one no longer served.
    func contentsForReseed() -> (state: [UInt8], epoch: String, lastSeqs: [Peer: Int64], forgot: Bool)?

    /// Stops serving this instance: everyone is closed with `message` (they resume against a fresh load).
    func failAll(message: String)

    /// Stops serving this instance with `code` and an `error` message before it (a deleted room: 4004).
    func stopServing(_ code: CloseCode, error: ErrorCode, message: String)
}

/// Why a patch sequenced elsewhere could not be folded into a room's copy.
package enum RoomFoldFailure: Error, Sendable, CustomStringConvertible {
    /// The patch does not follow the room's rev, or belongs to another epoch.
    case outOfOrder(String)
    /// The patch does not apply to this copy of the document.
    case doesNotApply(String)

    package var description: String {
        switch self {
        case .outOfOrder(let reason), .doesNotApply(let reason): reason
        }
    }
}
