import TandemTesting
import TandemProtocol
@testable import TandemClient

/// A welcome for alice's client `a1`, as the tests' in-memory server sends it.
func inMemoryWelcome(epoch: String = "e1", rev: Int64 = 0, state: JSONValue = .emptyObject, lastSeq: Int64 = 0,
                     replay: Bool = false) -> [UInt8] {
    ServerMessage.welcome(Welcome(epoch: epoch, rev: rev, sync: replay ? .replay([]) : .state(state), lastSeq: lastSeq,
                                  you: SessionIdentity(user: "alice", client: "a1", role: .host), participants: [])).encoded()
}

/// A session for client `a1` over `transport`, as the in-memory tests make them.
func inMemorySession(_ transport: InMemoryTransport, url: String = "ws://example.test/v1/sync", token: String = "t",
                     configuration: SyncSessionConfiguration) -> SyncSession {
    SyncSession(url: url, clientID: "a1", tokenProvider: { token }, configuration: configuration, transport: transport)
}

/// One connection of an `InMemoryTransport` as the test's server sees it: what the client sends, decoded,
/// and the server's side of the conversation. One test task reads it at a time.
final class ServedConnection: @unchecked Sendable {
    let end: InMemoryServerEnd
    private var received: AsyncStream<[UInt8]>.Iterator

    private init(end: InMemoryServerEnd) {
        self.end = end
        received = end.received.makeAsyncIterator()
    }

    /// The connection ended before the expected message.
    struct Ended: Error {}

    /// The next connection the session opens.
    static func accept(_ connections: inout AsyncStream<InMemoryServerEnd>.Iterator) async throws -> ServedConnection {
        guard let end = await connections.next() else { throw Ended() }
        return ServedConnection(end: end)
    }

    /// The next message the client sent.
    func next() async throws -> ClientMessage {
        guard let bytes = await received.next() else { throw Ended() }
        return try ClientMessage.decode(bytes)
    }

    /// Reads the client's `hello` and answers with `welcome`; returns the hello.
    func handshake(_ welcome: [UInt8] = inMemoryWelcome()) async throws -> Hello {
        guard case .hello(let hello) = try await next() else { throw Ended() }
        end.send(text: welcome)
        return hello
    }

    func send(text: [UInt8]) { end.send(text: text) }
    func close(code: UInt16) { end.close(code: code) }
    func drop() { end.drop() }
    var clientCloseCode: UInt16? { end.clientCloseCode }
    var request: SyncTransportRequest { end.request }
}
