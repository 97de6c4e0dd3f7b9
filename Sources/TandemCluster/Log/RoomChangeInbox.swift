import TandemSynchronization
import TandemRedis

/// Where a follower's subscriber connections (one per Redis server) drop what Redis pushes, until the follow loop takes it.
/// Thread-safe: the connection's event loop pushes, the follow loop waits and takes, the engine wakes.
final class RoomChangeInbox: Sendable {
    /// One thing the follow loop learns from the connection.
    /// `connection` numbers the subscriber connection it came from (a follower has one per shard, and
    /// ignores what a connection it replaced left behind).
    enum Item: Sendable, Equatable {
        case push(RedisSubscriber.Push, connection: Int)
        /// The subscriber connection closed: everything after this needs a new one.
        case closed(RedisError, connection: Int)
    }

    private struct State {
        var items: [Item] = []
        var woken = false
        var waiter: CheckedContinuation<Void, Never>?
        var ticker: Task<Void, Never>?
    }

    private let state = Locked(State())
    private let tick: Duration

    /// An inbox whose `wait` returns at least every `tick` even when nothing arrives (so the follow loop
    /// can do its periodic work).
    init(tick: Duration) {
        self.tick = max(tick, .milliseconds(1))
    }

    deinit {
        state.withLock { $0.ticker?.cancel() }
    }

    /// Adds `item` and wakes the waiting follow loop.
    func put(_ item: Item) {
        let waiter = state.withLock { state in
            state.items.append(item)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Makes the current or next `wait` return at once (the followed rooms changed).
    func wake() {
        let waiter = state.withLock { state in
            state.woken = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Drops everything waiting (no room is followed any more).
    func clear() {
        state.withLock { $0.items = [] }
    }

    /// Everything that arrived, waiting for the first item (or a wake, or the next tick) when nothing
    /// has; with `block` false, returns at once.
    func take(block: Bool) async -> [Item] {
        if block {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    if state.ticker == nil { state.ticker = makeTicker() }
                    guard state.items.isEmpty, !state.woken else { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
        return state.withLock { state in
            state.woken = false
            defer { state.items = [] }
            return state.items
        }
    }

    private func makeTicker() -> Task<Void, Never> {
        Task { [weak self, tick] in
            while !Task.isCancelled {
                try? await Task.sleep(for: tick)
                self?.wake()
            }
        }
    }
}
