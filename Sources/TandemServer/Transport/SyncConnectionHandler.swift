import TandemProtocol
import TandemWire

/// Joins one WebSocket connection to its `ServerSession`: inbound text goes to the session,
/// and the session's messages go out as shared frames. It is the only place where the sync
/// protocol meets the transport.
final class SyncConnectionHandler: WebSocketHandler, SessionSink, @unchecked Sendable {
    // `@unchecked`: `connection` and `session` are set once in `init` and never change;
    // the connection's own methods are thread-safe.
    private let connection: WebSocketConnection
    private let metrics: ServerMetrics
    private let logger: Logger
    private var session: ServerSession!

    init(connection: WebSocketConnection, context: ServerSession.Context) {
        self.connection = connection
        metrics = context.metrics
        logger = context.logger
        var sessionContext = context
        if context.timersOnConnectionLoops { sessionContext.scheduler = EventLoopTimerScheduler(loop: connection.loop) }
        session = ServerSession(id: ConnectionID(connection.id), sink: self, context: sessionContext)
        metrics.connections.add(1)
        logger.debug("connection.opened", LogField("connection", "#\(connection.id)"), LogField("peer", connection.remoteAddress ?? "?"))
    }

    // MARK: WebSocketHandler (on the connection's loop)

    func webSocketDidReceiveText(_ connection: WebSocketConnection, _ text: [UInt8]) {
        session.receive(text)
    }

    func webSocketDidReceiveBinary(_ connection: WebSocketConnection, _ bytes: [UInt8]) {
        close(.policyViolation, error: OutboundMessage(.error(code: .badMessage, message: "protocol v1 uses text frames only")))
    }

    func webSocketIdleTimeoutFired(_ connection: WebSocketConnection) {
        close(.idleTimeout, error: OutboundMessage(.error(code: .idleTimeout, message: "no frame received within the idle timeout; reconnect to resume")))
    }

    func webSocketDidClose(_ connection: WebSocketConnection, code: UInt16?, reason: String, clean: Bool) {
        metrics.connections.add(-1)
        metrics.closes.increment(code.map { String($0) } ?? "none")
        session.connectionClosed(clean: clean && code == CloseCode.normal.rawValue)
        logger.debug("connection.closed", LogField("connection", "#\(connection.id)"), LogField("code", code.map { String($0) } ?? "none"))
    }

    // MARK: SessionSink (any thread)

    func send(_ message: OutboundMessage) {
        metrics.messagesOut.increment()
        metrics.bytesOut.increment(by: message.payload.count)
        connection.send(message.frame)
    }

    func close(_ code: CloseCode, error: OutboundMessage?) {
        if let error { send(error) }
        connection.close(code: code.rawValue, reason: code.reason)
    }
}
