/// Hands the outcome of an opening handshake from the loop thread to the task awaiting it; completes once.
typealias WebSocketHandshakeWaiter = ResultWaiter<WebSocketConnection, WebSocketClientError>

/// The client side of a connection until the server's 101: sends the upgrade request, reads and validates the
/// response, then hands the socket to a ``WebSocketConnection``. Bounded by a timer: past it the connection
/// is dropped and the waiter gets `.timeout`.
/// Loop-confined: every member is touched on the connection's loop thread only (hence `@unchecked Sendable`).
final class WebSocketClientHandshakeSession: TCPConnectionHandler, @unchecked Sendable {
    struct Settings: Sendable {
        var maxMessageSize: Int
        var closeWait: Duration
        var makeHandler: @Sendable (WebSocketConnection) -> any WebSocketHandler
    }

    private let handshake: WebSocketClientHandshake
    private let settings: Settings
    private let waiter: WebSocketHandshakeWaiter
    private var parser = HTTPResponseParser()
    private var timer: ScheduledTask?
    private var done = false

    init(connection: TCPConnection, handshake: WebSocketClientHandshake, settings: Settings, waiter: WebSocketHandshakeWaiter, timeout: Duration) {
        self.handshake = handshake
        self.settings = settings
        self.waiter = waiter
        connection.write(handshake.requestBytes)
        // Strong captures: the timer is cancelled (which releases them) when the handshake ends or the connection
        // closes; a weak capture would slow every later retain of the connection (see `ScheduledTask`).
        timer = connection.loop.schedule(after: timeout) { [self] in
            self.fail(.timeout, connection)
        }
    }

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        guard !done else { return }
        parser.append(bytes)
        let head: HTTPResponse
        let subprotocol: String?
        do {
            guard let parsed = try parser.nextResponseHead() else { return }
            head = parsed
        } catch {
            fail(.handshakeFailed("malformed response: \(error)"), connection)
            return
        }
        do {
            subprotocol = try handshake.validate(head)
        } catch {
            fail(.handshakeFailed(error.description), connection)
            return
        }
        done = true
        timer?.cancel()
        let socket = WebSocketConnection(
            tcp: connection, role: .client, subprotocol: subprotocol, maxMessageSize: settings.maxMessageSize,
            idleTimeout: nil, closeWait: settings.closeWait)
        socket.handler = settings.makeHandler(socket)
        socket.start(leftover: parser.takeBufferedBytes())
        waiter.complete(.success(socket))
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {
        timer?.cancel()
        guard !done else { return }
        done = true
        let detail = error.map { ": \($0)" } ?? ""
        waiter.complete(.failure(.handshakeFailed("the server closed the connection before answering the upgrade\(detail)")))
    }

    private func fail(_ error: WebSocketClientError, _ connection: TCPConnection) {
        guard !done else { return }
        done = true
        timer?.cancel()
        connection.abort()
        waiter.complete(.failure(error))
    }
}
