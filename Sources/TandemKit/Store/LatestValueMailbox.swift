import TandemSynchronization

/// The one-slot buffer behind a store's observation streams (`values(of:)`, `states`): it holds at
/// most one value the consumer has not taken, and a newer value replaces it (latest wins).
///
/// Why latest-wins: a stream of states feeds rendering, and a consumer that falls behind needs the
/// newest state, not a backlog of every intermediate one, so memory stays constant however fast
/// the store changes. Duplicate suppression is against the value the consumer last *received*:
/// a change that returns to that value before the consumer reads cancels the pending value
/// instead of delivering a repeat. Producer side (`offer`, `finish`) and consumer side (`next`)
/// may run on any threads; one consumer at a time.
final class LatestValueMailbox<Value: Equatable & Sendable>: Sendable {
    private struct Slot {
        /// The last value handed to the consumer.
        var delivered: Value?
        /// A value newer than `delivered` that the consumer has not taken.
        var pending: Value?
        /// A consumer suspended in `next()`; only set while `pending` is nil.
        var waiter: CheckedContinuation<Value?, Never>?
        var finished = false
    }

    private let slot = Locked(Slot())

    /// The number of values waiting for the consumer: 0 or 1, whatever the producer did.
    var bufferedCount: Int {
        slot.withLock { $0.pending == nil ? 0 : 1 }
    }

    /// Makes `value` the next value the consumer gets, replacing one it has not taken yet. Ignored
    /// after `finish()`.
    func offer(_ value: Value) {
        let resume = slot.withLock { slot -> CheckedContinuation<Value?, Never>? in
            guard !slot.finished else { return nil }
            if let delivered = slot.delivered, delivered == value {
                slot.pending = nil
                return nil
            }
            guard let waiter = slot.waiter.take() else {
                slot.pending = value
                return nil
            }
            slot.delivered = value
            return waiter
        }
        resume?.resume(returning: value)
    }

    /// Ends the stream: a pending value is still delivered, then `next()` returns nil.
    func finish() {
        let resume = slot.withLock { slot -> CheckedContinuation<Value?, Never>? in
            slot.finished = true
            return slot.waiter.take()
        }
        resume?.resume(returning: nil)
    }

    /// The pending value, waiting for one if there is none; nil once finished.
    func next() async -> Value? {
        if let ready = slot.withLock({ Self.take(from: &$0) }) { return ready }
        return await withCheckedContinuation { continuation in
            let ready = slot.withLock { slot -> Value?? in
                if let value = Self.take(from: &slot) { return value }
                slot.waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Takes the pending value (`.some(value)`), reports the end (`.some(nil)`), or returns nil when
    /// the consumer must wait.
    private static func take(from slot: inout Slot) -> Value?? {
        if let value = slot.pending.take() {
            slot.delivered = value
            return .some(value)
        }
        return slot.finished ? .some(nil) : .none
    }
}
