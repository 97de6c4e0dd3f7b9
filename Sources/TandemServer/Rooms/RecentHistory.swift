import TandemProtocol

/// The newest patch events of a room, kept in memory so that most resumes replay without
/// touching storage, each with the array edits it made (what a later patch with an older `base` is
/// rebased over). A ring buffer: appending past capacity drops the oldest event.
struct RecentHistory: Sendable {
    /// One applied patch.
    struct Entry: Sendable {
        var event: PatchEvent
        var edits: [ArrayEdit]
    }

    private var entries: [Entry] = []
    private var head = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(0, capacity)
        entries.reserveCapacity(min(self.capacity, 1024))
    }

    var count: Int { entries.count }

    /// The oldest rev held, or `nil` when empty.
    var oldestRev: Int64? { entries.isEmpty ? nil : entries[head].event.rev }

    mutating func append(_ event: PatchEvent, edits: [ArrayEdit] = []) {
        guard capacity > 0 else { return }
        let entry = Entry(event: event, edits: edits)
        if entries.count < capacity {
            entries.append(entry)
        } else {
            entries[head] = entry
            head = (head + 1) % capacity
        }
    }

    /// Events with rev > `rev`, oldest first, or `nil` when some of them are no longer held.
    func events(after rev: Int64, through latest: Int64) -> [PatchEvent]? {
        self.entries(after: rev, through: latest)?.map(\.event)
    }

    /// Entries with rev > `rev`, oldest first, or `nil` when some of them are no longer held.
    func entries(after rev: Int64, through latest: Int64) -> [Entry]? {
        if rev >= latest { return [] }
        guard let oldest = oldestRev, oldest <= rev + 1 else { return nil }
        let skip = Int(rev + 1 - oldest)
        return (skip..<entries.count).map { entries[(head + $0) % entries.count] }
    }

    /// The rev at which `client` had `seq` applied, if that event is still held.
    func revision(client: String, seq: Int64) -> Int64? {
        entries.first { $0.event.client == client && $0.event.seq == seq }?.event.rev
    }
}
