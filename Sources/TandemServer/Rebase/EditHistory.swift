import TandemProtocol

/// The array edits of a room's newest patches, with their authors: what a patch whose `base` is
/// behind the room is rebased over (`PatchRebase`). It holds the newest `capacity` entries; a rev it
/// no longer holds can still be rebased from when no array changed after it.
///
/// One per room copy (the room's core, a cluster node's replica), advanced in rev order with every
/// patch applied. A copy is cheap whatever the capacity (a cluster node copies its replica for every
/// batch it checks): full runs of entries are shared between copies, only the newest partial run is
/// copied.
package struct EditHistory: Sendable {
    private struct Entry: Sendable {
        var rev: Int64
        var author: Peer
        var edits: [ArrayEdit]
    }

    /// A full run of entries, never changed once made.
    private final class Run: Sendable {
        let entries: [Entry]
        init(_ entries: [Entry]) { self.entries = entries }
    }

    private static var runLength: Int { 32 }
    /// The full runs, oldest first; the first one's `dropped` oldest entries are no longer held.
    private var runs: [Run] = []
    private var dropped = 0
    /// The newest entries, fewer than a run.
    private var tail: [Entry] = []
    private let capacity: Int
    /// The newest rev that inserted or removed an array element, or may have (what came before the
    /// history started is not known).
    private var lastEditRev: Int64

    /// An empty history for a room at `rev`, whose earlier edits are not known.
    package init(capacity: Int, at rev: Int64 = 0) {
        self.capacity = max(0, capacity)
        lastEditRev = rev
    }

    /// Records the edits `author`'s patch made at `rev` (the next rev).
    package mutating func record(rev: Int64, author: Peer, edits: [ArrayEdit]) {
        if !edits.isEmpty { lastEditRev = rev }
        guard capacity > 0 else { return }
        tail.append(Entry(rev: rev, author: author, edits: edits))
        if tail.count == Self.runLength {
            runs.append(Run(tail))
            tail = []
        }
        while runs.count * Self.runLength - dropped + tail.count > capacity {
            if runs.isEmpty {
                tail.removeFirst()
            } else {
                dropped += 1
                if dropped == Self.runLength {
                    runs.removeFirst()
                    dropped = 0
                }
            }
        }
    }

    /// Calls `body` with each entry held, oldest first.
    private func forEachEntry(_ body: (Entry) -> Void) {
        for (index, run) in runs.enumerated() {
            for entry in run.entries[(index == 0 ? dropped : 0)...] { body(entry) }
        }
        for entry in tail { body(entry) }
    }

    /// `ops` of `author` (a user's client), made on rev `base`, rebased onto the room at rev `latest` over
    /// the other authors' edits after `base`, with `context` (the author's last one) standing in for the edits
    /// its own earlier patches rewrote. Returns the ops to apply and the client's context for its
    /// next patch (nil when no array changed after `base`).
    /// - Throws: `PatchError.testFailed` (a `test` of a removed element), `.baseTooOld` when an
    ///   array changed after `base` and the history no longer reaches back to it.
    package func rebase(_ ops: [PatchOp], base: Int64, latest: Int64, author: Peer,
                        context: RebaseContext?) throws(PatchError) -> (ops: [PatchOp], context: RebaseContext?) {
        // No array changed after the base: nothing to rebase over, and no context to keep.
        guard base < latest, base < lastEditRev else { return (ops, nil) }
        var changes: [RebaseContext.Change] = []
        var from = base
        // A base older than the context's (a late resend) is rebased over the history alone.
        if let context, base >= context.since {
            changes = context.changes.filter { $0.rev > base }
            from = max(base, context.through)
        }
        if from < lastEditRev {
            let oldest = runs.first.map { $0.entries[dropped].rev } ?? tail.first?.rev ?? lastEditRev + 1
            guard oldest <= from + 1 else { throw .baseTooOld(base: base, oldest: oldest - 1) }
            forEachEntry { entry in
                if entry.rev > from, entry.rev <= latest, entry.author != author, !entry.edits.isEmpty {
                    changes.append(RebaseContext.Change(rev: entry.rev, edits: entry.edits))
                }
            }
        }
        var edits = changes.map(\.edits)
        let rebased = try PatchRebase.rebase(ops, over: &edits)
        for index in changes.indices { changes[index].edits = edits[index] }
        return (rebased, RebaseContext(since: base, through: latest, changes: changes))
    }
}
