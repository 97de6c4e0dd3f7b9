import TandemProtocol

/// Where a room delivers one connection's messages; the connection layer implements it.
///
/// Implementations must be safe to call from any thread and must deliver messages to the peer
/// in the order of the calls (the room relies on this for rev order).
public protocol SessionSink: AnyObject, Sendable {
    /// Queues a text message for the peer.
    func send(_ message: OutboundMessage)
    /// Sends an `error` message (when given), then closes with `code`. Later sends are dropped.
    func close(_ code: CloseCode, error: OutboundMessage?)
}
