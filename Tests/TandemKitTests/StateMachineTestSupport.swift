import Synchronization

/// A thread-safe, append-only list of entries that tests read back to check ordering.
final class FlowLog<Entry: Sendable>: Sendable {
    private let entries = Mutex<[Entry]>([])

    func append(_ entry: Entry) {
        entries.withLock { $0.append(entry) }
    }

    var all: [Entry] {
        entries.withLock { $0 }
    }
}
