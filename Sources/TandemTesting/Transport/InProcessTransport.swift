import TandemSynchronization
import TandemClient
import TandemProtocol
import TandemServer
import TandemWire

/// A `SyncTransport` that reaches a server in the same process (a ``TestServer``) without a socket: each connection the session opens is
/// handed straight to the server's protocol session (the same rooms, limits and loops a WebSocket gets), so
/// an app's test can cut the network at will and deterministically — drop every link, or make the server
/// unreachable for a while — without ports, proxies or timing.
///
/// Thread-safe. The server's shutdown closes these connections with 1001, as it does sockets.
public final class InProcessTransport: SyncTransport {
    private struct State {
        var reachable = true
        var links: [ObjectIdentifier: InProcessLink] = [:]
        var attempts = 0
    }
    private let server: @Sendable () -> SyncServer?
    private let state = Locked(State())

    /// A transport to `server`.
    public convenience init(server: TestServer) {
        let server = server.server
        self.init { server }
    }

    /// A transport to whichever server `current` returns at each connection attempt (nil: none is running,
    /// the attempt fails as an unreachable server does), for tests that restart their server.
    public init(connectingTo current: @escaping @Sendable () -> SyncServer?) {
        server = current
    }

    /// Connection attempts so far, successful or not.
    public var attempts: Int { state.withLock { $0.attempts } }

    /// How many connections are open now.
    public var openConnections: Int { state.withLock { $0.links.count } }

    /// Drops every open connection without a close frame, as a lost network does: the sessions see the link
    /// go (and reconnect), the server sees the connections end unclean.
    public func dropConnections() {
        let links = state.withLock { Array($0.links.values) }
        for link in links { link.end(code: nil, reason: "", byClient: false) }
    }

    /// While false, new connections fail as an unreachable server does (open ones are untouched: pair it
    /// with ``dropConnections()`` for an outage).
    public func setReachable(_ reachable: Bool) {
        state.withLock { $0.reachable = reachable }
    }

    /// Opens an in-process connection to the server.
    public func connect(_ request: SyncTransportRequest) async throws(SyncTransportError) -> any SyncTransportConnection {
        let reachable = state.withLock { state in
            state.attempts += 1
            return state.reachable
        }
        guard reachable else { throw .unreachable("the test server is unreachable (InProcessTransport.setReachable(false))") }
        let link = InProcessLink { [weak self] link in
            _ = self?.state.withLock { $0.links.removeValue(forKey: ObjectIdentifier(link)) }
        }
        state.withLock { $0.links[ObjectIdentifier(link)] = link }
        guard let connection = server()?.connectInProcess(sink: link) else {
            _ = state.withLock { $0.links.removeValue(forKey: ObjectIdentifier(link)) }
            throw .unreachable("the test server is not running")
        }
        link.attach(connection)
        return LinkClientEnd(link: link)
    }
}

/// Both ends of one in-process connection: the server's sink and the client's events.
final class InProcessLink: SessionSink, ClientLink {
    private struct State {
        var open = true
        var connection: InProcessConnection?
    }
    let events: AsyncStream<WebSocketClientEvent>
    private let sink: AsyncStream<WebSocketClientEvent>.Continuation
    private let state = Locked(State())
    private let onEnd: @Sendable (InProcessLink) -> Void

    init(onEnd: @escaping @Sendable (InProcessLink) -> Void) {
        (events, sink) = AsyncStream<WebSocketClientEvent>.makeStream()
        self.onEnd = onEnd
    }

    func attach(_ connection: InProcessConnection) {
        let ended = state.withLock { state in
            state.connection = connection
            return !state.open
        }
        // The server closed it before it was attached: tell the server it is gone.
        if ended { connection.closed(clean: false) }
    }

    /// The client's message for the server; false once the connection is closed.
    func forward(_ text: [UInt8]) -> Bool {
        guard let connection = state.withLock({ $0.open ? $0.connection : nil }) else { return false }
        connection.receive(text)
        return true
    }

    /// Ends the connection once: the client sees `.closed(code:)`, the server that the connection is gone.
    func end(code: UInt16?, reason: String, byClient: Bool) {
        let connection: InProcessConnection?? = state.withLock { state in
            guard state.open else { return nil }
            state.open = false
            sink.yield(.closed(code: code, reason: reason))
            sink.finish()
            return .some(state.connection)
        }
        guard let connection else { return }
        connection?.closed(clean: byClient && code == CloseCode.normal.rawValue)
        onEnd(self)
    }

    // MARK: SessionSink (any thread; the lock keeps the calls' order)

    func send(_ message: OutboundMessage) {
        state.withLock { state in
            guard state.open else { return }
            sink.yield(.text(message.payload))
        }
    }

    func close(_ code: CloseCode, error: OutboundMessage?) {
        if let error { send(error) }
        end(code: code.rawValue, reason: code.reason, byClient: false)
    }
}
