import TandemSynchronization

/// What every connection of one ``WebSocketServer`` shares: the settings, the application's callbacks and the
/// registry of open WebSocket connections (for `connectionCount` and shutdown). Thread-safe.
final class WebSocketServerContext: Sendable {
    let configuration: WebSocketServerConfiguration
    let handshake: WebSocketServerHandshake
    let routes: @Sendable (HTTPRequest, HTTPResponder) -> Void
    let accept: @Sendable (WebSocketConnection, WebSocketUpgrade) -> (any WebSocketHandler)?

    private struct Registry {
        var connections: [UInt64: WebSocketConnection] = [:]
        var shuttingDown = false
    }
    private let registry = Locked(Registry())

    init(
        configuration: WebSocketServerConfiguration,
        routes: @escaping @Sendable (HTTPRequest, HTTPResponder) -> Void,
        accept: @escaping @Sendable (WebSocketConnection, WebSocketUpgrade) -> (any WebSocketHandler)?
    ) {
        self.configuration = configuration
        handshake = WebSocketServerHandshake(supportedSubprotocols: configuration.subprotocols)
        self.routes = routes
        self.accept = accept
    }

    var connectionCount: Int { registry.withLock { $0.connections.count } }

    var isShuttingDown: Bool { registry.withLock { $0.shuttingDown } }

    /// Adds an upgraded connection; false once shutdown has begun (the caller refuses the upgrade).
    func register(_ connection: WebSocketConnection) -> Bool {
        registry.withLock { registry in
            guard !registry.shuttingDown else { return false }
            registry.connections[connection.id] = connection
            return true
        }
    }

    func unregister(_ connection: WebSocketConnection) {
        _ = registry.withLock { $0.connections.removeValue(forKey: connection.id) }
    }

    /// Marks the server as shutting down and returns the connections open at that moment.
    func beginShutdown() -> [WebSocketConnection] {
        registry.withLock { registry in
            registry.shuttingDown = true
            return Array(registry.connections.values)
        }
    }

    /// The connections still open.
    var openConnections: [WebSocketConnection] {
        registry.withLock { Array($0.connections.values) }
    }
}
