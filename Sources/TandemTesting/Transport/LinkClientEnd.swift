import TandemClient
import TandemWire

/// A test transport's connection as its server side holds it: what reaches the client, and the client's way in.
protocol ClientLink: Sendable {
    /// What the client receives, then `.closed` (always last).
    var events: AsyncStream<WebSocketClientEvent> { get }
    /// Passes the client's message on; false once the connection is closed.
    func forward(_ text: [UInt8]) -> Bool
    /// Ends the connection once: `byClient` when the client closed it with `code`.
    func end(code: UInt16?, reason: String, byClient: Bool)
}

/// The session's side of one connection of a test transport.
struct LinkClientEnd<Link: ClientLink>: SyncTransportConnection {
    let link: Link

    var events: AsyncStream<WebSocketClientEvent> { link.events }

    func send(text: [UInt8]) async throws(SyncTransportError) {
        guard link.forward(text) else { throw .closed }
    }

    func close(code: UInt16, reason: String) async {
        link.end(code: code, reason: reason, byClient: true)
    }

    func abort() {
        link.end(code: nil, reason: "", byClient: false)
    }
}
