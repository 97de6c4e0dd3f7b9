#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A WebSocket server over Tandem's event loops: one port serves plain HTTP requests (through `routes`, with
/// keep-alive) and WebSocket upgrades on one path.
///
/// Thread-safe. Each connection lives on one loop of the group; its handler's callbacks run there.
package final class WebSocketServer: Sendable {
    private let listener: TCPListener
    private let context: WebSocketServerContext
    private let tls: TLSServerSettings?

    private init(listener: TCPListener, context: WebSocketServerContext, tls: TLSServerSettings?) {
        self.listener = listener
        self.context = context
        self.tls = tls
    }

    /// Binds and starts serving. Plain HTTP requests (not an upgrade) go to `routes` (nil → 404), with
    /// keep-alive. Requests for `configuration.path` are validated as upgrades (426 without `Upgrade`, 400 or
    /// 405 for a malformed handshake, 403 for a refused `Origin`), then `accept` is called on the connection's
    /// loop thread: it returns the handler, or nil to refuse (403, then close). Upgrades on other paths → 404.
    /// - Throws: `IOError` when the address cannot be bound.
    package static func start(
        configuration: WebSocketServerConfiguration,
        group: EventLoopGroup,
        routes: @escaping @Sendable (HTTPRequest) -> HTTPResponse?,
        accept: @escaping @Sendable (WebSocketConnection, WebSocketUpgrade) -> (any WebSocketHandler)?
    ) throws -> WebSocketServer {
        let notFound = HTTPServerSession.notFound(configuration.errorBodies)
        return try start(configuration: configuration, group: group, handler: { request, responder in
            responder.respond(routes(request) ?? notFound)
        }, accept: accept)
    }

    /// Binds and starts serving, like ``start(configuration:group:routes:accept:)``, but plain HTTP requests go to
    /// `handler` with an ``HTTPResponder`` that may answer later, from any thread (after storage work, say).
    /// `handler` runs on the connection's loop thread and must not block it; it must answer every request.
    /// Requests pipelined on one connection wait for the answer before them, so responses keep request order.
    /// - Throws: `IOError` when the address cannot be bound.
    package static func start(
        configuration: WebSocketServerConfiguration,
        group: EventLoopGroup,
        handler: @escaping @Sendable (HTTPRequest, HTTPResponder) -> Void,
        accept: @escaping @Sendable (WebSocketConnection, WebSocketUpgrade) -> (any WebSocketHandler)?
    ) throws -> WebSocketServer {
        let context = WebSocketServerContext(configuration: configuration, routes: handler, accept: accept)
        let tls = configuration.tls.map {
            TLSServerSettings(context: $0, plaintextReply: HTTPServerSession.plaintextOnTLSPort(configuration.errorBodies).bytes)
        }
        let listener = try TCPListener.bind(
            host: configuration.host, port: configuration.port, group: group,
            configuration: TCPListener.Configuration(
                maxConnections: configuration.maxConnections, connection: configuration.tcpConfiguration),
            tls: tls
        ) { connection in
            HTTPServerSession(connection: connection, context: context)
        }
        return WebSocketServer(listener: listener, context: context, tls: tls)
    }

    /// Serves `context` (renewed certificates) to the connections accepted from now on; open ones keep
    /// theirs. Returns false when the server does not serve TLS.
    @discardableResult
    package func replaceTLSContext(_ context: TLSContext) -> Bool {
        guard let tls else { return false }
        tls.replace(context)
        return true
    }

    /// The bound port (the one the kernel picked when the configuration asked for 0).
    package var port: Int { listener.port }

    /// Open WebSocket connections.
    package var connectionCount: Int { context.connectionCount }

    /// Stops accepting, closes every WebSocket with `code`, waits up to `timeout` for their close handshakes,
    /// drops the ones still open and closes the listener. Blocking: call it from outside the group's loops.
    package func shutdown(code: UInt16 = 1001, reason: String = "server shutting down", timeout: Duration = .seconds(5)) {
        precondition(!listener.group.loops.contains { $0.inEventLoop }, "WebSocketServer.shutdown blocks: call it off the event loops")
        listener.close()
        for connection in context.beginShutdown() {
            connection.close(code: code, reason: reason)
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while context.connectionCount > 0, clock.now < deadline {
            usleep(2_000)
        }
        for connection in context.openConnections {
            connection.abort()
        }
        // Aborts take effect on the loops; give them a moment to report.
        let abortDeadline = clock.now.advanced(by: .seconds(1))
        while context.connectionCount > 0, clock.now < abortDeadline {
            usleep(2_000)
        }
    }
}
