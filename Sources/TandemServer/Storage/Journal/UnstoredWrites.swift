import TandemProtocol

/// The records the lane has journaled that the database may not hold yet, and what a read can learn
/// from them on top of a database snapshot — so that a read does not have to wait for the materializer.
///
/// Owned by the commit lane (the only thread that journals or reads), so it needs no lock. Answers take
/// the snapshot's journal position: only records after it are news to that snapshot.
struct UnstoredWrites {
    /// Oldest first; `records[start...]` are the ones kept.
    private var records: [JournalRecord] = []
    private var start = 0

    /// Records kept (tests look).
    var count: Int { records.count - start }

    /// Keeps a journaled record until the database holds it.
    mutating func append(_ record: JournalRecord) {
        records.append(record)
    }

    /// Forgets the records the database holds: positions up to `position`.
    mutating func forget(through position: UInt64) {
        while start < records.count, records[start].position <= position { start += 1 }
        // Shift the array only now and then, so forgetting stays O(1) per record.
        if start == records.count {
            records.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= 1024, start * 2 >= records.count {
            records.removeFirst(start)
            start = 0
        }
    }

    /// Whether a record after `position` writes to `room` (creates it, appends to it, snapshots or deletes it).
    func touchesRoom(_ room: String, after position: UInt64) -> Bool {
        writes(after: position).contains { write in
            switch write {
            case .createRoom(let name, _, _), .snapshot(let name, _, _, _), .forgetClients(let name, _), .deleteRoom(let name),
                 .expireHistory(let name, _, _): name == room
            case .appendPatch(let patch): patch.room == room
            case .saveInvite, .deleteInvite, .saveDenial, .deleteDenial: false
            }
        }
    }

    /// Whether a record after `position` recreates, snapshots, forgets clients of or deletes `room`: then
    /// what the database held of the room may be gone, and only storing those records first gives the
    /// right answer.
    func reshapes(_ room: String, after position: UInt64) -> Bool {
        writes(after: position).contains { write in
            switch write {
            case .createRoom(let name, _, _), .snapshot(let name, _, _, _), .forgetClients(let name, _), .deleteRoom(let name),
                 .expireHistory(let name, _, _): name == room
            case .appendPatch, .saveInvite, .deleteInvite, .saveDenial, .deleteDenial: false
            }
        }
    }

    /// Whether a record after `position` saves or deletes an invite.
    func touchesInvites(after position: UInt64) -> Bool {
        writes(after: position).contains { write in
            if case .saveInvite = write { return true }
            if case .deleteInvite = write { return true }
            return false
        }
    }

    /// Whether a record after `position` saves or deletes a denial.
    func touchesDenials(after position: UInt64) -> Bool {
        writes(after: position).contains { write in
            if case .saveDenial = write { return true }
            if case .deleteDenial = write { return true }
            return false
        }
    }

    /// `stored` — the database's first `limit` patches of `room` after rev `after`, as of `position` —
    /// continued with the room's patches journaled since. Call only when `reshapes` is false: then every
    /// newer patch of the room follows the stored ones.
    func patches(of room: String, after: Int64, limit: Int, stored: [StoredPatch], position: UInt64) -> [StoredPatch] {
        var result = stored
        var last = stored.last?.rev ?? after
        for write in writes(after: position) where result.count < limit {
            if case .appendPatch(let patch) = write, patch.room == room, patch.rev > last {
                result.append(patch)
                last = patch.rev
            }
        }
        return result
    }

    /// The rev of `author`'s patch `seq` in `room` among the records after `position`, if one is there.
    func revision(room: String, author: Peer, seq: Int64, after position: UInt64) -> Int64? {
        for write in writes(after: position) {
            if case .appendPatch(let patch) = write, patch.room == room, patch.seq == seq, patch.author == author {
                return patch.rev
            }
        }
        return nil
    }

    private func writes(after position: UInt64) -> FlattenSequence<LazyMapSequence<LazyFilterSequence<ArraySlice<JournalRecord>>, [StorageWrite]>> {
        records[start...].lazy.filter { $0.position > position }.map(\.writes).joined()
    }
}
