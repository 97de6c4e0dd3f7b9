/// The order in which a room shows what waits for storage: nothing decided at rev R (a welcome, a
/// reject, the ack of a duplicate) goes out before rev R itself is released, and items go out in the
/// order they were decided. So a connection sees acks, rejects, patch events and its welcome in rev
/// order, and nobody sees a state before it is durable.
///
/// A value with one owner (the room, under its lock); no I/O.
struct ReleaseGate<Item> {
    /// Every rev up to this one is released (durable and sent).
    private(set) var releasedRev: Int64
    private var held: [(rev: Int64, item: Item)] = []
    /// Index of the first item still held (items before it were released; compacted when empty).
    private var head = 0

    /// A gate whose revs up to `releasedRev` are released already (a room as storage holds it).
    init(releasedRev: Int64) {
        self.releasedRev = releasedRev
    }

    /// Items waiting.
    var heldCount: Int { held.count - head }

    /// Returns `item` when it may go now (rev `decidedAt` is released and nothing earlier waits);
    /// otherwise keeps it for `release(through:)`.
    mutating func admit(_ item: Item, decidedAt rev: Int64) -> Item? {
        if rev <= releasedRev && heldCount == 0 { return item }
        held.append((rev, item))
        return nil
    }

    /// Marks every rev through `rev` released and returns, in order, the items decided at or before
    /// it (none, without allocating, in the common case). Send them after rev `rev` itself.
    mutating func release(through rev: Int64) -> [Item] {
        releasedRev = max(releasedRev, rev)
        guard head < held.count, held[head].rev <= releasedRev else { return [] }
        var end = head
        while end < held.count, held[end].rev <= releasedRev { end += 1 }
        let due = held[head..<end].map(\.item)
        head = end
        if head == held.count {
            held.removeAll(keepingCapacity: true)
            head = 0
        }
        return due
    }

    /// Drops every held item (the room is closing) and returns them, oldest first, for what must still
    /// be told it will not go out.
    @discardableResult
    mutating func removeAll() -> [Item] {
        let dropped = held[head...].map(\.item)
        held.removeAll()
        head = 0
        return dropped
    }
}
