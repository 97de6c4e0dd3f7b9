import TandemSynchronization

/// Hands every element to every listener: each `stream()` is a stream of its own, with every element
/// yielded from the moment it was made, so two listeners never split one sequence between them. After
/// `finish()`, every stream ends, and a stream made later ends at once.
///
/// Thread-safe (one mutex). Elements reach each stream in the order `yield` was called; a listener that
/// falls more than `bufferLimit` behind loses its oldest unread elements, not the others'.
final class FanOut<Element: Sendable>: Sendable {
    private struct State {
        var nextID = 0
        var listeners: [Int: AsyncStream<Element>.Continuation] = [:]
        var finished = false
    }

    private let state = Locked(State())
    private let bufferLimit: Int

    /// A fan-out whose streams each buffer at most `bufferLimit` unread elements.
    init(bufferLimit: Int) {
        self.bufferLimit = bufferLimit
    }

    /// A new listener's stream.
    func stream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            defer { state.nextID += 1 }
            state.listeners[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    /// Gives `element` to every listener.
    func yield(_ element: Element) {
        for listener in state.withLock({ Array($0.listeners.values) }) { listener.yield(element) }
    }

    /// Ends every stream, and every stream made from now on.
    func finish() {
        let listeners: [AsyncStream<Element>.Continuation] = state.withLock { state in
            state.finished = true
            defer { state.listeners = [:] }
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.finish() }
    }
}
