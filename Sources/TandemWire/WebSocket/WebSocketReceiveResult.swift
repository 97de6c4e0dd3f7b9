/// What the connection state machine wants done after it consumed received bytes.
///
/// Apply it in this order: deliver `events`, write `bytesToWrite`, then, if `closeSocket`,
/// close the transport once the write has been flushed.
public struct WebSocketReceiveResult: Sendable, Equatable {
    /// Messages and control frames from the peer, in wire order.
    public var events: [WebSocketEvent] = []
    /// Frames the protocol requires us to send in response (pongs, the close reply), already
    /// encoded and masked as the role demands.
    public var bytesToWrite: [UInt8] = []
    /// True when the close handshake is complete or the connection has been failed: flush
    /// `bytesToWrite`, then close the socket.
    public var closeSocket = false
    /// The protocol violation that failed the connection, if any; its close code has been
    /// written into `bytesToWrite`.
    public var error: WebSocketProtocolError?

    /// Creates an empty result.
    public init(events: [WebSocketEvent] = [], bytesToWrite: [UInt8] = [], closeSocket: Bool = false, error: WebSocketProtocolError? = nil) {
        self.events = events
        self.bytesToWrite = bytesToWrite
        self.closeSocket = closeSocket
        self.error = error
    }
}
