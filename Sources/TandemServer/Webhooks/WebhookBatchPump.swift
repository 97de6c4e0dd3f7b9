import TandemSynchronization
import TandemWire

/// Hands what webhook reporters buffer to an async writer (the delivery queue, Redis), one batch at a
/// time and in order, so that reporters never wait. A batch the writer refuses is kept, with what
/// came after it, and written again (waits doubling from 100 ms to 5 s); only one still refused at
/// `close()` is lost, logged as `webhook.lost`.
package final class WebhookBatchPump<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var closed = false
    }

    /// The state, in a box of its own so the task can hold it without holding the pump.
    private final class Box: Sendable {
        let state = Locked(State())
    }

    /// The longest wait between two tries to write a refused batch.
    package static var maxRetryWait: Duration { .seconds(5) }

    private let box = Box()
    private let signal: AsyncStream<Void>.Continuation
    private let task: Task<Void, Never>

    /// - Parameters:
    ///   - what: names the items in logs (`events`, `facts`).
    ///   - clock: what the waits between tries sleep on.
    ///   - write: writes one batch, in order; throws to have it written again.
    package init(what: String, logger: Logger, clock: any Clock<Duration> = ContinuousClock(), write: @escaping @Sendable ([Item]) async throws -> Void) {
        let (signals, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.signal = signal
        let box = box
        task = Task {
            var iterator = signals.makeAsyncIterator()
            var pending: [Item] = []
            var wait = Duration.milliseconds(100)
            while true {
                if pending.isEmpty, await iterator.next() == nil { return }
                pending += box.state.withLock { state in
                    defer { state.items.removeAll(keepingCapacity: true) }
                    return state.items
                }
                guard !pending.isEmpty else { continue }
                do {
                    try await write(pending)
                    pending = []
                    wait = .milliseconds(100)
                } catch {
                    logger.error("webhook.write_failed", LogField(what, "\(pending.count)"), LogField("error", "\(error)"))
                    if box.state.withLock({ $0.closed }) {
                        logger.error("webhook.lost", LogField(what, "\(pending.count)"), LogField("error", "still failing at shutdown"))
                        return
                    }
                    try? await clock.sleep(for: wait)
                    wait = min(wait * 2, Self.maxRetryWait)
                }
            }
        }
    }

    /// Changes the buffer of what waits to be written, under the pump's lock; `change` returns whether
    /// there is something new to write. Does nothing once closed.
    package func update(_ change: (inout [Item]) -> Bool) {
        let queued = box.state.withLock { state in
            guard !state.closed else { return false }
            return change(&state.items)
        }
        if queued { signal.yield() }
    }

    /// Stops taking items and waits until everything taken is written (or given up on).
    package func close() async {
        box.state.withLock { $0.closed = true }
        signal.yield()
        signal.finish()
        await task.value
    }
}
