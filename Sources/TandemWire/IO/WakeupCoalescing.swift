/// Defers the event-loop wake-ups one thread causes while it hands out a batch of work, so that
/// each loop is woken once per batch instead of once per `execute`.
///
/// Example: the storage thread completes a group commit and delivers 200 acks to connections on
/// two loops; without coalescing, a loop that drains its inbox faster than acks arrive is woken
/// (an `eventfd` write and a context switch) for nearly every ack. Work is queued at once and runs
/// in the same order; only the wake-up waits until the batch is handed out, and it always happens.
package enum WakeupCoalescing {
    /// The loops that were asked to wake up during the current batch on this thread.
    final class Pending {
        var loops: [EventLoop] = []
    }

    /// Holds each thread's open batch; it holds no shared state itself.
    private static let slot = ThreadSlot<Pending>()

    /// The batch open on the calling thread, if any.
    static var current: Pending? { slot.value }

    /// Runs `body`; wake-ups that `EventLoop.execute` calls on this thread would do are done
    /// afterwards, once per loop. Nested calls join the outer batch.
    package static func batch<R>(_ body: () throws -> R) rethrows -> R {
        if current != nil { return try body() }
        let pending = Pending()
        slot.set(pending)
        defer {
            slot.set(nil)
            for loop in pending.loops { loop.wake() }
        }
        return try withExtendedLifetime(pending) { try body() }
    }
}
