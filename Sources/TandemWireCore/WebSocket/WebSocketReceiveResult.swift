/// What the connection state machine wants done after it consumed received bytes.
///
/// Apply it in this order: deliver `events`, write `bytesToWrite`, then, if `closeSocket`,
/// close the transport once the write has been flushed.
package struct WebSocketReceiveResult: Sendable, Equatable {
    /// Messages and control frames from the peer, in wire order.
    package var events: [WebSocketEvent] = []
    /// Frames the protocol requires us to send in response (pongs, the close reply), already
    /// encoded and masked as the role demands.
    package var bytesToWrite: [UInt8] = []
    /// True when the close handshake is complete or the connection has been failed: flush
    /// `bytesToWrite`, then close the socket.
    package var closeSocket = false
    /// The protocol violation that failed the connection, if any; its close code has been
    /// written into `bytesToWrite`.
    package var error: WebSocketProtocolError?

    /// Creates an empty result.
    package init(events: [WebSocketEvent] = [], bytesToWrite: [UInt8] = [], closeSocket: Bool = false, error: WebSocketProtocolError? = nil) {
        self.events = events
        self.bytesToWrite = bytesToWrite
        self.closeSocket = closeSocket
        self.error = error
    }
}
