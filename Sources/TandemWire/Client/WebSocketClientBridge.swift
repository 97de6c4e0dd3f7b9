import TandemSynchronization

/// The handler behind a ``WebSocketClient``: turns connection callbacks into an `AsyncStream` and tracks
/// writability and closure for the async `send` and `close`. Thread-safe.
final class WebSocketClientBridge: WebSocketHandler, Sendable {
    let events: AsyncStream<WebSocketClientEvent>
    private let continuation: AsyncStream<WebSocketClientEvent>.Continuation

    private struct State {
        var writable = true
        var closing = false
        var closed = false
        var writeWaiters: [CheckedContinuation<Void, Never>] = []
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Locked(State())

    init() {
        (events, continuation) = AsyncStream.makeStream(of: WebSocketClientEvent.self)
    }

    /// Hooks the connection's writability reports (call on its loop, before traffic starts).
    func observe(_ connection: WebSocketConnection) {
        connection.writabilityObserver = { [weak self] writable in self?.setWritable(writable) }
    }

    func webSocketDidReceiveText(_ connection: WebSocketConnection, _ text: [UInt8]) {
        continuation.yield(.text(text))
    }

    func webSocketDidReceiveBinary(_ connection: WebSocketConnection, _ bytes: [UInt8]) {
        continuation.yield(.binary(bytes))
    }

    func webSocketDidClose(_ connection: WebSocketConnection, code: UInt16?, reason: String, clean: Bool) {
        continuation.yield(.closed(code: code, reason: reason))
        continuation.finish()
        let waiters = state.withLock { state in
            state.closed = true
            state.closing = true
            defer {
                state.writeWaiters = []
                state.closeWaiters = []
            }
            return state.writeWaiters + state.closeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func webSocketIdleTimeoutFired(_ connection: WebSocketConnection) {}

    /// Suspends while the write queue is above its high-water mark; throws once the connection is closing.
    func waitUntilWritable() async throws(WebSocketClientError) {
        while true {
            let (isClosing, isWritable) = state.withLock { ($0.closing, $0.writable) }
            if isClosing { throw .closed }
            if isWritable { return }
            await withCheckedContinuation { waiter in
                let resumeNow = state.withLock { state -> Bool in
                    if state.closing || state.writable { return true }
                    state.writeWaiters.append(waiter)
                    return false
                }
                if resumeNow { waiter.resume() }
            }
        }
    }

    /// Marks the connection as closing (later sends throw).
    func markClosing() {
        let waiters = state.withLock { state in
            state.closing = true
            defer { state.writeWaiters = [] }
            return state.writeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Suspends until the handler has heard `webSocketDidClose`.
    func waitUntilClosed() async {
        await withCheckedContinuation { waiter in
            let resumeNow = state.withLock { state -> Bool in
                if state.closed { return true }
                state.closeWaiters.append(waiter)
                return false
            }
            if resumeNow { waiter.resume() }
        }
    }

    /// Records the connection's writability (called on its loop) and wakes waiting senders when it returns.
    func setWritable(_ writable: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.writable = writable
            guard writable else { return [] }
            defer { state.writeWaiters = [] }
            return state.writeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
