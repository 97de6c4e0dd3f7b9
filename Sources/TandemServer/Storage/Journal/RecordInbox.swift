import Dispatch
import TandemSynchronization
import TandemProtocol

/// Hands journaled records from the commit lane to the materializer without a lock: the lane (an event
/// loop) must never wait for a lock that the materializer holds while the scheduler has put it aside —
/// that wait would be a delivery delayed by milliseconds.
///
/// A push links a node onto an atomic stack; the single consumer takes the whole stack at once and
/// reverses it, so records come out in push order. Taking everything at once (never one node) is what
/// makes the stack safe without ABA protection. Pushes may come from any thread; `takeAll` from one
/// consumer at a time (the journal's callers take turns under its database lock), `wait` from one thread.
// @unchecked: the raw node pointers are owned as described above (a node belongs to the stack from its
// push until the consumer takes it); every other field is an atomic or a semaphore.
final class RecordInbox: @unchecked Sendable {
    private final class Node {
        let record: JournalRecord
        var next: UnsafeMutableRawPointer?
        init(_ record: JournalRecord) { self.record = record }
    }

    /// The newest node, retained; each node retains nothing (ownership passes to the consumer).
    private let head = AtomicValue<UnsafeMutableRawPointer?>(nil)
    private let pending = AtomicValue<Int>(0)
    /// Set by the consumer before it sleeps without a deadline: only then does a push signal.
    private let sleeping = AtomicValue<Bool>(false)
    private let wakeup = DispatchSemaphore(value: 0)

    deinit {
        _ = takeAll()
    }

    /// Records pushed and not yet taken.
    var count: Int { pending.load(ordering: .relaxed) }

    /// Adds a record; wakes the consumer if it sleeps for lack of work.
    func push(_ record: JournalRecord) {
        let node = Node(record)
        let raw = Unmanaged.passRetained(node).toOpaque()
        var current = head.load(ordering: .relaxed)
        while true {
            node.next = current
            let (exchanged, original) = head.compareExchange(expected: current, desired: raw, ordering: .releasing)
            if exchanged { break }
            current = original
        }
        pending.add(1, ordering: .relaxed)
        if sleeping.exchange(false, ordering: .sequentiallyConsistent) { wakeup.signal() }
    }

    /// Every record pushed so far, oldest first.
    func takeAll() -> [JournalRecord] {
        guard var cursor = head.exchange(nil, ordering: .acquiring) else { return [] }
        var records: [JournalRecord] = []
        while true {
            let node = Unmanaged<Node>.fromOpaque(cursor).takeRetainedValue()
            records.append(node.record)
            guard let next = node.next else { break }
            cursor = next
        }
        records.reverse()
        pending.subtract(records.count, ordering: .relaxed)
        return records
    }

    /// Wakes the consumer from either kind of wait (a reader needs it, or it should stop).
    func wake() {
        wakeup.signal()
    }

    /// Consumer: sleeps until `deadline` (pushes do not cut it short; `wake()` does), or, without one,
    /// until a push or `wake()`. May return early; callers re-check their conditions.
    func wait(until deadline: ContinuousClock.Instant?) {
        if let deadline {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return }
            _ = wakeup.wait(timeout: .now() + .nanoseconds(Int(clamping: remaining.totalNanoseconds)))
            return
        }
        sleeping.store(true, ordering: .sequentiallyConsistent)
        if head.load(ordering: .sequentiallyConsistent) != nil, sleeping.exchange(false, ordering: .sequentiallyConsistent) {
            return  // work arrived before anyone saw the flag: nobody will signal
        }
        wakeup.wait()
    }
}
