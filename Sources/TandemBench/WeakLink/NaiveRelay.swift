import TandemSynchronization
import TandemWire

/// The article's approach as a server: every text message a connection sends goes, as it is, to every
/// other connection — no sequencing, no state, no acks, no coalescing. A client sends its whole page
/// state per change.
final class NaiveRelay: Sendable {
    private let connections = Locked<[UInt64: WebSocketConnection]>([:])
    private let server: WebSocketServer

    /// A relay listening on a free loopback port.
    init(group: EventLoopGroup) throws {
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        configuration.idleTimeout = nil
        let connections = connections
        server = try WebSocketServer.start(configuration: configuration, group: group, routes: { _ in nil }) { connection, _ in
            connections.withLock { $0[connection.id] = connection }
            return Handler(connections: connections)
        }
    }

    /// The port it listens on.
    var port: Int { server.port }

    func shutdown() { server.shutdown(timeout: .seconds(2)) }

    private final class Handler: WebSocketHandler {
        let connections: Locked<[UInt64: WebSocketConnection]>
        init(connections: Locked<[UInt64: WebSocketConnection]>) { self.connections = connections }

        func webSocketDidReceiveText(_ connection: WebSocketConnection, _ text: [UInt8]) {
            for (id, other) in connections.withLock({ $0 }) where id != connection.id { other.sendText(text) }
        }

        func webSocketDidReceiveBinary(_ connection: WebSocketConnection, _ bytes: [UInt8]) {}

        func webSocketDidClose(_ connection: WebSocketConnection, code: UInt16?, reason: String, clean: Bool) {
            connections.withLock { _ = $0.removeValue(forKey: connection.id) }
        }
    }
}
