/// The TCP handler of an established WebSocket: forwards the connection's byte and lifecycle events to its
/// ``WebSocketConnection``. Kept apart so the TCP callbacks do not become public API of the connection.
final class WebSocketChannel: TCPConnectionHandler {
    let connection: WebSocketConnection

    init(connection: WebSocketConnection) {
        self.connection = connection
    }

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        self.connection.receive(bytes)
    }

    func connectionWritabilityChanged(_ connection: TCPConnection, isWritable: Bool) {
        self.connection.writabilityChanged(isWritable)
    }

    func connectionIdleTimeoutFired(_ connection: TCPConnection) {
        self.connection.idleTimeoutFired()
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {
        self.connection.tcpDidClose(error: error)
    }
}
