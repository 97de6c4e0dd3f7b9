/// A binary min-heap of timers keyed by deadline; timers with equal deadlines come out in insertion order.
///
/// Pure data: the caller supplies the times, so ordering and expiry are testable without a clock.
struct TimerHeap<Payload> {
    struct Entry {
        var deadline: UInt64
        var sequence: UInt64
        var payload: Payload

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private(set) var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// The earliest deadline, if any timer is pending.
    var nextDeadline: UInt64? { entries.first?.deadline }

    mutating func insert(deadline: UInt64, _ payload: Payload) {
        entries.append(Entry(deadline: deadline, sequence: nextSequence, payload: payload))
        nextSequence &+= 1
        siftUp(entries.count - 1)
    }

    /// Removes and returns the earliest timer if its deadline is at or before `now`.
    mutating func popExpired(now: UInt64) -> Payload? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            siftDown(0)
        }
        return first.payload
    }

    /// Drops every timer for which `shouldRemove` holds, keeping the order of the rest.
    mutating func removeAll(where shouldRemove: (Payload) -> Bool) {
        entries.removeAll { shouldRemove($0.payload) }
        var index = entries.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let count = entries.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { return }
            var smallest = left
            let right = left + 1
            if right < count, entries[right].precedes(entries[left]) { smallest = right }
            guard entries[smallest].precedes(entries[parent]) else { return }
            entries.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
