import TandemProtocol

/// The newest patch events of a room, kept in memory so that most resumes replay without
/// touching storage. A ring buffer: appending past capacity drops the oldest event.
struct RecentHistory: Sendable {
    private var events: [PatchEvent] = []
    private var head = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(0, capacity)
        events.reserveCapacity(min(self.capacity, 1024))
    }

    var count: Int { events.count }

    /// The oldest rev held, or `nil` when empty.
    var oldestRev: Int64? { events.isEmpty ? nil : events[head].rev }

    mutating func append(_ event: PatchEvent) {
        guard capacity > 0 else { return }
        if events.count < capacity {
            events.append(event)
        } else {
            events[head] = event
            head = (head + 1) % capacity
        }
    }

    /// Events with rev > `rev`, oldest first, or `nil` when some of them are no longer held.
    func events(after rev: Int64, through latest: Int64) -> [PatchEvent]? {
        if rev >= latest { return [] }
        guard let oldest = oldestRev, oldest <= rev + 1 else { return nil }
        let skip = Int(rev + 1 - oldest)
        return (skip..<events.count).map { events[(head + $0) % events.count] }
    }

    /// The rev at which `author` had `seq` applied, if that event is still held.
    func revision(author: Peer, seq: Int64) -> Int64? {
        events.first { $0.seq == seq && $0.client == author.client && $0.user == author.user }?.rev
    }
}
