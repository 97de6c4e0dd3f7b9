import TandemSynchronization
import TandemProtocol
import TandemWire

/// One connection that reaches the server without a socket: the same protocol session a WebSocket gets, run
/// on one of the server's loops as a socket's is. TandemTesting's in-process transport is built on it.
package final class InProcessConnection: Sendable {
    private let session: ServerSession
    private let loop: EventLoop
    private let onClose: @Sendable () -> Void

    fileprivate init(session: ServerSession, loop: EventLoop, onClose: @escaping @Sendable () -> Void) {
        self.session = session
        self.loop = loop
        self.onClose = onClose
    }

    /// Hands the server one complete text message from the client. Messages are handled in the order of
    /// the calls, on the connection's loop.
    package func receive(_ text: [UInt8]) {
        let session = session
        _ = loop.execute { session.receive(text) }
    }

    /// The connection ended: `clean` for a 1000 close from the client. Call it once.
    package func closed(clean: Bool) {
        let session = session, onClose = onClose
        _ = loop.execute {
            session.connectionClosed(clean: clean)
            onClose()
        }
    }
}

/// The in-process connections a server holds, so that its shutdown closes them with 1001 as it closes sockets,
/// and refuses new ones from then on.
final class InProcessConnections: Sendable {
    private struct Open {
        var accepting = true
        var sinks: [UInt64: any SessionSink] = [:]
    }
    private let open = Locked(Open())

    /// A session for `sink` on `loop`; nil once the server is shutting down.
    func accept(sink: any SessionSink, loop: EventLoop, context: ServerSession.Context) -> InProcessConnection? {
        let id = WebSocketConnection.makeID()
        guard open.withLock({ open in
            guard open.accepting else { return false }
            open.sinks[id] = sink
            return true
        }) else { return nil }
        var context = context
        context.scheduler = EventLoopTimerScheduler(loop: loop)
        let metrics = context.metrics
        metrics.connections.add(1)
        let session = ServerSession(id: ConnectionID(id), sink: sink, context: context)
        return InProcessConnection(session: session, loop: loop) { [weak self] in
            metrics.connections.add(-1)
            self?.open.withLock { _ = $0.sinks.removeValue(forKey: id) }
        }
    }

    /// Refuses new connections and closes the open ones with 1001.
    func closeAll() {
        let sinks = open.withLock { open in
            open.accepting = false
            return Array(open.sinks.values)
        }
        for sink in sinks { sink.close(.goingAway, error: nil) }
    }
}
