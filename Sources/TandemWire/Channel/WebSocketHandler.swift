/// The owner of one established WebSocket connection's events (either role).
///
/// Every callback runs on the connection's event loop thread, never from inside a call the handler made on
/// the connection, so a handler may send or close from any callback. `webSocketDidClose` comes exactly once,
/// after which the connection lets its handler go.
package protocol WebSocketHandler: AnyObject {
    /// A complete text message arrived; `text` is its UTF-8 bytes, already validated.
    func webSocketDidReceiveText(_ connection: WebSocketConnection, _ text: [UInt8])

    /// A complete binary message arrived. The default closes the connection with 1003 (unsupported data).
    func webSocketDidReceiveBinary(_ connection: WebSocketConnection, _ bytes: [UInt8])

    /// The connection is gone; called exactly once. `code` and `reason` say why: the ones this side sent when it
    /// started the close or failed the connection (e.g. 4000 idle, 1002 protocol error), 4002 when the send queue
    /// overflowed, otherwise the peer's close frame; `code` is nil when the connection dropped without any close
    /// frame (or the peer's close frame had no code). `clean` is true only when the peer sent a close frame with
    /// code 1000.
    func webSocketDidClose(_ connection: WebSocketConnection, code: UInt16?, reason: String, clean: Bool)

    /// No frame arrived for the configured idle timeout. The default closes with 4000 ("idle timeout").
    func webSocketIdleTimeoutFired(_ connection: WebSocketConnection)
}

extension WebSocketHandler {
    /// Default: refuses binary data with close code 1003.
    package func webSocketDidReceiveBinary(_ connection: WebSocketConnection, _ bytes: [UInt8]) {
        connection.close(code: WebSocketCloseCode.unsupportedData.rawValue, reason: "binary messages are not supported")
    }

    /// Default: closes with 4000 ("idle timeout").
    package func webSocketIdleTimeoutFired(_ connection: WebSocketConnection) {
        connection.close(code: WebSocketConnection.idleTimeoutCode, reason: "idle timeout")
    }
}
