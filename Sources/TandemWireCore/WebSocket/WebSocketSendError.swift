/// Why a message could not be sent on a WebSocket connection.
package enum WebSocketSendError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A close frame has already been sent (or the connection was failed); RFC 6455 §5.5.1
    /// forbids data frames after it.
    case closing
    /// The close handshake has finished; the connection is gone.
    case closed

    /// The reason, phrased for a log line.
    package var description: String {
        switch self {
        case .closing: "cannot send: the connection is closing"
        case .closed: "cannot send: the connection is closed"
        }
    }
}
