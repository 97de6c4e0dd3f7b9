import TandemProtocol
import TandemServer

/// The cluster engine's copy of one room's document on this node: built from the snapshot in Redis,
/// advanced by folding the room's log, and asked whether a local patch is valid before it is appended.
///
/// A value with one owner (the node's `ClusterRoomSync`). Folding ignores the limits (the author's node
/// checked them when the patch was appended); validation applies them.
struct ClusterDocumentReplica: ClusterReplica {
    /// Why a stored snapshot could not be used.
    struct UnreadableSnapshot: Error, CustomStringConvertible {
        var description: String
    }

    private(set) var document: Document
    /// The limits a new patch must respect.
    let limits: PatchLimits
    /// The array edits of the patches folded since the snapshot, for local patches with an older base.
    private var edits: EditHistory

    init(snapshot: RoomSnapshot?) throws {
        try self.init(snapshot: snapshot, limits: PatchLimits())
    }

    init(snapshot: RoomSnapshot?, limits: PatchLimits) throws {
        self.limits = limits
        edits = EditHistory(capacity: 1_024, at: snapshot?.rev ?? 0)
        guard let snapshot else {
            document = Document()
            return
        }
        do {
            guard let document = Document(try JSONValue.parseStored(snapshot.state)) else { throw UnreadableSnapshot(description: "not a JSON object") }
            self.document = document
        } catch let error as UnreadableSnapshot {
            throw error
        } catch {
            throw UnreadableSnapshot(description: "\(error)")
        }
    }

    mutating func fold(_ patch: SequencedPatch) throws {
        try fold(patch, ops: try Self.ops(patch.ops))
    }

    mutating func fold(_ patch: SequencedPatch, event: PatchEvent) throws {
        try fold(patch, ops: event.ops)
    }

    private mutating func fold(_ patch: SequencedPatch, ops: [PatchOp], limits: PatchLimits = .unlimited) throws(PatchError) {
        var made: [ArrayEdit] = []
        try document.apply(ops, limits: limits, edits: &made)
        edits.record(rev: patch.rev, author: Peer(user: patch.user, client: patch.client), edits: made)
    }

    /// One parse and one apply: `Document.apply` is all or nothing, so a refused patch leaves the
    /// document (and the edit history) as it was.
    mutating func foldIfValid(_ patch: SequencedPatch, parsed: [PatchOp]?) -> String? {
        do {
            try fold(patch, ops: try parsed ?? Self.ops(patch.ops), limits: limits)
            return nil
        } catch let error as PatchError {
            return ClusterRejection.encode(error)
        } catch {
            return ClusterRejection.encode(.invalidOp(op: 0, reason: "\(error)"))
        }
    }

    func rebase(_ ops: [UInt8], base: Int64, latest: Int64, author: Peer,
                context: RebaseContext?) throws(PatchError) -> (ops: [UInt8], context: RebaseContext?) {
        guard base < latest else { return (ops, nil) }
        let parsed: [PatchOp]
        do {
            parsed = try Self.ops(ops)
        } catch {
            throw .invalidOp(op: 0, reason: "\(error)")
        }
        let rebase = try edits.rebase(parsed, base: base, latest: latest, author: author, context: context)
        guard rebase.ops != parsed else { return (ops, rebase.context) }
        var encoded: [UInt8] = []
        PatchOp.write(rebase.ops, into: &encoded)
        return (encoded, rebase.context)
    }

    var state: [UInt8] { document.root.serializedBytes() }

    func rejection(of ops: [UInt8]) -> String? {
        do {
            _ = try document.applying(try Self.ops(ops), limits: limits)
            return nil
        } catch let error as PatchError {
            return ClusterRejection.encode(error)
        } catch {
            return ClusterRejection.encode(.invalidOp(op: 0, reason: "\(error)"))
        }
    }

    /// The ops of a logged patch (a JSON array).
    static func ops(_ bytes: [UInt8]) throws -> [PatchOp] {
        try PatchOp.list(from: try JSONValue.parseStored(bytes))
    }
}
