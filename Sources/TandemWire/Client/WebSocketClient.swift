/// A WebSocket client for Swift concurrency: connect, read ``events``, `send`, `close`. `ws://` and `wss://`
/// (TLS through ``TLSContext``) over Tandem's event loops; the connection logic after the handshake is the
/// same as the server's.
///
/// Thread-safe. `events` has a single consumer and ends after `.closed`.
package final class WebSocketClient: Sendable {
    /// The subprotocol the server chose, if any.
    package let subprotocol: String?
    /// The underlying connection (its `id` and `remoteAddress` are handy for logs).
    package let connection: WebSocketConnection
    private let bridge: WebSocketClientBridge

    private init(connection: WebSocketConnection, bridge: WebSocketClientBridge) {
        self.connection = connection
        self.bridge = bridge
        subprotocol = connection.subprotocol
    }

    /// A client dropped without `close()` drops its connection too, so it cannot linger unreachable.
    deinit {
        connection.abort()
    }

    /// Connects to `url` (`ws://` or `wss://host[:port]/path`; IPv6 literals in brackets, host names
    /// resolved) and performs the opening handshake, offering `subprotocols` and sending `headers` (e.g.
    /// `Origin`). `timeout` bounds the TCP connect, the TLS handshake and the WebSocket handshake together.
    /// Messages above `maxMessageSize` bytes fail the connection with 1009.
    ///
    /// `wss://` verifies the server's certificate against `tls` (a client context; nil: the system's trust
    /// store) for the URL's host. `tls` is ignored for `ws://`.
    /// - Throws: `.tls` for a certificate the client does not accept or a server that does not speak TLS.
    package static func connect(
        url: String, subprotocols: [String] = [], headers: [(String, String)] = [], timeout: Duration = .seconds(10),
        maxMessageSize: Int = 16 * 1024 * 1024, tls: TLSContext? = nil, on loop: EventLoop
    ) async throws(WebSocketClientError) -> WebSocketClient {
        let bridge = WebSocketClientBridge()
        let connection = try await connect(
            url: url, subprotocols: subprotocols, headers: headers, timeout: timeout, maxMessageSize: maxMessageSize, tls: tls,
            on: loop
        ) { connection in
            bridge.observe(connection)
            return bridge
        }
        return WebSocketClient(connection: connection, bridge: bridge)
    }

    /// Connects like ``connect(url:subprotocols:headers:timeout:maxMessageSize:tls:on:)`` but delivers events to the
    /// handler `makeHandler` returns (called on the loop thread before any message arrives): the callback form,
    /// for code that lives on the event loop (load generators, proxies).
    package static func connect(
        url: String, subprotocols: [String] = [], headers: [(String, String)] = [], timeout: Duration = .seconds(10),
        maxMessageSize: Int = 16 * 1024 * 1024, tls: TLSContext? = nil, on loop: EventLoop,
        handler makeHandler: @escaping @Sendable (WebSocketConnection) -> any WebSocketHandler
    ) async throws(WebSocketClientError) -> WebSocketConnection {
        let target = try WebSocketURL(url)
        let context: TLSContext?
        do throws(TLSError) {
            context = try target.tlsContext(given: tls)
        } catch {
            throw .tls(error)
        }
        let handshake = WebSocketClientHandshake(
            host: target.hostHeader, path: target.target, subprotocols: subprotocols, extraHeaders: HTTPHeaders(headers))
        let settings = WebSocketClientHandshakeSession.Settings(
            maxMessageSize: maxMessageSize, closeWait: .seconds(2), makeHandler: makeHandler)
        let waiter = WebSocketHandshakeWaiter()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        do {
            _ = try await TCPConnection.connect(
                host: target.host, port: target.port, timeout: timeout, on: loop, configuration: clientTCPConfiguration,
                tls: context
            ) { connection in
                WebSocketClientHandshakeSession(
                    connection: connection, handshake: handshake, settings: settings, waiter: waiter,
                    timeout: max(.zero, deadline - clock.now))
            }
        } catch let error as IOError {
            if case .connectTimeout = error { throw .timeout }
            if case .tls(let failure) = error { throw .tls(failure) }
            throw .connectFailed(error.description)
        } catch {
            throw .connectFailed("\(error)")
        }
        return try await waiter.wait().get()
    }

    /// Client writes are paced by `send` at the high-water mark (1 MiB), so the hard queue limit only has to
    /// absorb what concurrent senders add at once.
    private static let clientTCPConfiguration = TCPConnectionConfiguration(maxQueuedBytes: 64 << 20, closeTimeout: .seconds(2))

    /// The server's messages, then `.closed`. Single consumer.
    package var events: AsyncStream<WebSocketClientEvent> { bridge.events }

    /// Sends a text message (`text` must be valid UTF-8). Suspends while the write queue is above its high-water
    /// mark, so a fast producer is paced by the network. Messages from one task go out in call order.
    /// - Throws: `.closed` once the connection is closing or closed.
    package func send(text: [UInt8]) async throws(WebSocketClientError) {
        try await send { (machine, output) throws(WebSocketSendError) in try machine.sendText(utf8: text, into: &output) }
    }

    /// Sends a binary message, with the same pacing as `send(text:)`.
    package func send(binary: [UInt8]) async throws(WebSocketClientError) {
        try await send { (machine, output) throws(WebSocketSendError) in try machine.sendBinary(binary, into: &output) }
    }

    /// Waits for writability, then writes on the loop and waits for that, so the writability seen by the next
    /// send already includes this message (a sending loop cannot run past the high-water mark).
    private func send(
        _ encode: @escaping @Sendable (inout WebSocketConnectionStateMachine, inout [UInt8]) throws(WebSocketSendError) -> Void
    ) async throws(WebSocketClientError) {
        try await bridge.waitUntilWritable()
        let connection = connection
        let bridge = bridge
        let sent = (try? await connection.loop.submit {
            let sent = connection.sendNow(encode)
            // The connection reports the change in its flush phase; record it now so the next send waits.
            if !connection.tcp.isWritable { bridge.setWritable(false) }
            return sent
        }) ?? false
        guard sent else { throw .closed }
    }

    /// Sends a ping; the server answers with a pong (not surfaced as an event).
    package func ping(_ payload: [UInt8] = []) {
        connection.sendPing(payload)
    }

    /// Runs the close handshake with `code` and `reason` and returns once the connection is closed (bounded: the
    /// connection is dropped if the server does not answer within a couple of seconds).
    package func close(code: UInt16 = 1000, reason: String = "") async {
        bridge.markClosing()
        connection.close(code: code, reason: reason)
        await bridge.waitUntilClosed()
    }

    /// Drops the TCP connection at once, without a close frame (to test lost networks). `events` ends with
    /// `.closed(code: nil, ...)`.
    package func abort() {
        bridge.markClosing()
        connection.abort()
    }
}
