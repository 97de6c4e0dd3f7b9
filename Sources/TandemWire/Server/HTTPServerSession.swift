/// The HTTP phase of one accepted TCP connection: parses requests, answers plain ones through the server's
/// routes (with keep-alive and pipelining), validates WebSocket upgrades and, once one is accepted, hands the
/// connection to a ``WebSocketConnection``.
///
/// A connection that does not complete a request within `handshakeTimeout` (a slow or stalled client) is
/// dropped; with keep-alive the bound restarts after each response. While a route's answer is outstanding the
/// connection stops reading (pipelined requests wait in the kernel, not in memory) and the bound is paused.
///
/// Loop-confined: every member is touched on the connection's loop thread only (hence `@unchecked Sendable`;
/// responders hop back to the loop before touching the session).
final class HTTPServerSession: TCPConnectionHandler, @unchecked Sendable {
    private let context: WebSocketServerContext
    private var parser: HTTPRequestParser
    private var timer: ScheduledTask?
    private var finished = false
    /// A route is answering the current request; no further request is read until it has.
    private var awaitingAnswer = false
    private let remoteAddress: SocketAddress?

    init(connection: TCPConnection, context: WebSocketServerContext) {
        self.context = context
        parser = HTTPRequestParser(limits: .init(
            maxHeaderBytes: context.configuration.maxHeaderBytes, maxBodyBytes: context.configuration.maxBodyBytes))
        remoteAddress = try? connection.remoteAddress()
        armTimer(connection)
    }

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        guard !finished else { return }
        parser.append(bytes)
        processRequests(on: connection)
    }

    private func processRequests(on connection: TCPConnection) {
        do {
            while !finished, !awaitingAnswer, let request = try parser.nextRequest() {
                handle(request, on: connection)
            }
        } catch {
            respondAndClose(context.configuration.errorBodies == .json ? error.jsonResponse : error.response, on: connection)
        }
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {
        timer?.cancel()
        timer = nil
    }

    // MARK: - Requests

    private func handle(_ request: HTTPRequest, on connection: TCPConnection) {
        let configuration = context.configuration
        if request.path == configuration.path {
            upgrade(request, on: connection)
        } else if WebSocketServerHandshake.isUpgradeRequest(request) {
            respondAndClose(Self.plain(404, "no WebSocket endpoint at \(request.path)"), on: connection)
        } else {
            awaitingAnswer = true
            timer?.cancel()
            timer = nil
            connection.pauseReading()
            let keepAlive = request.keepAlive
            let responder = HTTPResponder(remoteAddress: remoteAddress) { [weak self, weak connection] response in
                guard let session = self, let connection else { return }
                _ = connection.loop.execute { session.answer(response, keepAlive: keepAlive, on: connection) }
            }
            context.routes(request, responder)
        }
    }

    /// Sends a route's answer (on the loop) and goes on with the next request.
    private func answer(_ answer: HTTPResponse, keepAlive requested: Bool, on connection: TCPConnection) {
        guard !finished, awaitingAnswer else { return }
        awaitingAnswer = false
        var response = answer
        let keepAlive = requested && !response.headers.containsToken("close", in: "Connection") && !context.isShuttingDown
        guard keepAlive else {
            response.headers.replaceOrAdd(name: "Connection", value: "close")
            respondAndClose(response, on: connection)
            return
        }
        write(response, on: connection)
        armTimer(connection)
        connection.resumeReading()
        processRequests(on: connection)
    }

    private func upgrade(_ request: HTTPRequest, on connection: TCPConnection) {
        let configuration = context.configuration
        let upgrade: WebSocketUpgrade
        do {
            upgrade = try context.handshake.evaluate(request)
        } catch {
            respondAndClose(error.response, on: connection)
            return
        }
        if !configuration.allowedOrigins.isEmpty, let origin = upgrade.origin, !configuration.allowedOrigins.contains(origin) {
            respondAndClose(Self.plain(403, "origin \(origin) is not allowed"), on: connection)
            return
        }
        let socket = WebSocketConnection(
            tcp: connection, role: .server, subprotocol: upgrade.subprotocol, maxMessageSize: configuration.maxMessageSize,
            idleTimeout: configuration.idleTimeout, closeWait: configuration.closeTimeout)
        // Registered before the application sees it, so a shutdown racing with this upgrade either refuses it
        // here or closes it with the others.
        guard context.register(socket) else {
            respondAndClose(Self.plain(503, "the server is shutting down"), on: connection)
            return
        }
        guard let handler = context.accept(socket, upgrade) else {
            context.unregister(socket)
            respondAndClose(Self.plain(403, "the server refused the connection"), on: connection)
            return
        }
        finished = true
        timer?.cancel()
        timer = nil
        socket.handler = handler
        let context = context
        socket.closeObserver = { context.unregister($0) }
        write(upgrade.response(), on: connection)
        socket.start(leftover: parser.takeBufferedBytes())
    }

    // MARK: - Helpers

    private func respondAndClose(_ response: HTTPResponse, on connection: TCPConnection) {
        finished = true
        timer?.cancel()
        timer = nil
        write(response, on: connection)
        connection.close()
    }

    /// Writes `response` with the headers every response of the server carries: the one place responses leave.
    private func write(_ response: HTTPResponse, on connection: TCPConnection) {
        guard connection.isSecure, let maxAge = context.configuration.strictTransportSecurityMaxAge else {
            connection.write(response.bytes)
            return
        }
        var secured = response
        secured.headers.replaceOrAdd(name: "Strict-Transport-Security", value: "max-age=\(maxAge)")
        connection.write(secured.bytes)
    }

    private func armTimer(_ connection: TCPConnection) {
        timer?.cancel()
        // A strong capture: the timer is cancelled (which releases it) once the handshake ends or the connection
        // closes, and a weak one would slow every later retain of this connection (see `ScheduledTask`).
        timer = connection.loop.schedule(after: context.configuration.handshakeTimeout) {
            connection.abort()
        }
    }

    /// The answer to a request no route claims.
    static func notFound(_ format: WebSocketServerConfiguration.ErrorBodyFormat) -> HTTPResponse {
        switch format {
        case .plainText: plain(404, "not found")
        case .json: .jsonError(status: 404, error: "not_found", message: "no such endpoint")
        }
    }

    /// The answer, unencrypted, to a plain request on a TLS port.
    static func plaintextOnTLSPort(_ format: WebSocketServerConfiguration.ErrorBodyFormat) -> HTTPResponse {
        let message = "this port speaks TLS: use https:// or wss://"
        var response = switch format {
        case .plainText: plain(400, message)
        case .json: HTTPResponse.jsonError(status: 400, error: "tls_required", message: message)
        }
        response.headers.replaceOrAdd(name: "Connection", value: "close")
        return response
    }

    /// A small plain-text response.
    static func plain(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array((message + "\n").utf8))
    }
}
