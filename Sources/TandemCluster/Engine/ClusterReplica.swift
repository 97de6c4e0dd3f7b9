import TandemProtocol
import TandemServer

/// A node's in-memory copy of one room's document, advanced only by folding the room's log in rev
/// order. The server's implementation wraps its document model; the node engine only needs these
/// three operations.
protocol ClusterReplica: Sendable {
    /// A replica of the document stored in `snapshot`, or of an empty document when there is none.
    /// - Throws: when the stored snapshot cannot be read (the room then needs a new epoch).
    init(snapshot: RoomSnapshot?) throws

    /// Applies the next patch of the log. Must be deterministic: every node folds the same patches in
    /// the same order and must end with the same document.
    /// - Throws: when the patch cannot be applied (the replica has diverged and must be reloaded).
    mutating func fold(_ patch: SequencedPatch) throws

    /// Applies the next patch of the log whose ops the engine parsed already (`event`: the same patch,
    /// parsed once per node and shared with the room that fans it out).
    /// - Throws: as `fold(_:)`.
    mutating func fold(_ patch: SequencedPatch, event: PatchEvent) throws

    /// The document serialized as JSON, for the snapshot stored in Redis.
    var state: [UInt8] { get }

    /// Why `ops` cannot be applied to the current document (nil when it can): the semantic validation
    /// that Redis's structural checks cannot do.
    func rejection(of ops: [UInt8]) -> String?

    /// Folds a local patch not yet appended when it is valid against the current document within the
    /// limits (nil), or says why it is not and leaves the replica as it was: `rejection(of:)` and
    /// `fold(_:)` in one step, for the node's own patches. `parsed`: its ops, when the node has them
    /// parsed already.
    mutating func foldIfValid(_ patch: SequencedPatch, parsed: [PatchOp]?) -> String?

    /// `ops` of `author`, made on rev `base`, rebased for appending after this replica's rev `latest`
    /// over the other authors' array edits since (`EditHistory.rebase`), and the author's context for
    /// its next patch.
    /// - Throws: `PatchError` (`test_failed`, `base_too_old`) when it cannot be.
    func rebase(_ ops: [UInt8], base: Int64, latest: Int64, author: Peer,
                context: RebaseContext?) throws(PatchError) -> (ops: [UInt8], context: RebaseContext?)
}

extension ClusterReplica {
    /// Checks, then folds: a replica that cannot do both at once parses the ops twice.
    mutating func foldIfValid(_ patch: SequencedPatch, parsed: [PatchOp]?) -> String? {
        if let rejection = rejection(of: patch.ops) { return rejection }
        do {
            try fold(patch)
            return nil
        } catch {
            return ClusterRejection.encode(.invalidOp(op: 0, reason: "\(error)"))
        }
    }

    /// A replica that works from the logged bytes parses them itself.
    mutating func fold(_ patch: SequencedPatch, event: PatchEvent) throws {
        try fold(patch)
    }

    /// `ops` of `author`, made on rev `base`, for appending after this replica's rev `latest`: a replica
    /// that keeps no edit history applies them as they are.
    func rebase(_ ops: [UInt8], base: Int64, latest: Int64, author: Peer,
                context: RebaseContext?) throws(PatchError) -> (ops: [UInt8], context: RebaseContext?) {
        (ops, nil)
    }
}
