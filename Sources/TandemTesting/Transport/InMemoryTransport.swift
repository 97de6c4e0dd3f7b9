import TandemSynchronization
import TandemClient
import TandemWire

/// A `SyncTransport` with no socket, for tests of code built on `SyncSession`: every connection the session
/// opens arrives in `connections` as an ``InMemoryServerEnd``, and the test plays the server on it (reads the
/// client's messages, answers, closes or drops it). Connection attempts can be made to fail.
///
/// Thread-safe. Connections are delivered in the order the session opened them.
public final class InMemoryTransport: SyncTransport {
    /// The server's end of each connection, in order. Single consumer.
    public let connections: AsyncStream<InMemoryServerEnd>
    private let sink: AsyncStream<InMemoryServerEnd>.Continuation
    private let failures = Locked<[SyncTransportError]>([])
    private let requests = Locked<[SyncTransportRequest]>([])

    /// Creates a transport that accepts every connection until told otherwise.
    public init() {
        (connections, sink) = AsyncStream<InMemoryServerEnd>.makeStream()
    }

    /// Makes the next attempts fail with `errors`, one each, in order.
    public func failNextAttempts(with errors: [SyncTransportError]) {
        failures.withLock { $0.append(contentsOf: errors) }
    }

    /// Every request the session made, in order (failed attempts included).
    public var attempts: [SyncTransportRequest] { requests.withLock { $0 } }

    /// Opens an in-memory connection, or fails with the next queued failure.
    public func connect(_ request: SyncTransportRequest) async throws(SyncTransportError) -> any SyncTransportConnection {
        requests.withLock { $0.append(request) }
        if let failure = failures.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw failure }
        let pipe = InMemoryPipe()
        sink.yield(InMemoryServerEnd(pipe: pipe, request: request))
        return LinkClientEnd(link: pipe)
    }
}

/// The server's side of one in-memory connection.
public struct InMemoryServerEnd: Sendable {
    fileprivate let pipe: InMemoryPipe
    /// What the session asked for (URL, subprotocols, headers).
    public let request: SyncTransportRequest

    /// The client's text messages, in order; ends when the connection closes.
    public var received: AsyncStream<[UInt8]> { pipe.toServer }

    /// Sends a text message to the client. Ignored once the connection is closed.
    public func send(text: [UInt8]) {
        pipe.deliver(.text(text))
    }

    /// Closes the connection with `code`, as a server's close frame does.
    public func close(code: UInt16, reason: String = "") {
        pipe.end(code: code, reason: reason, byClient: false)
    }

    /// Drops the connection without a close frame, as a lost network does.
    public func drop() {
        pipe.end(code: nil, reason: "", byClient: false)
    }

    /// The code the client closed with, once it did (nil: open, or dropped without one).
    public var clientCloseCode: UInt16? { pipe.clientCode }
}

/// Both directions of one connection and whether it is still open.
final class InMemoryPipe: ClientLink {
    let toServer: AsyncStream<[UInt8]>
    let toClient: AsyncStream<WebSocketClientEvent>
    private let serverSink: AsyncStream<[UInt8]>.Continuation
    private let clientSink: AsyncStream<WebSocketClientEvent>.Continuation
    private let state = Locked<(open: Bool, clientCode: UInt16?)>((true, nil))

    var events: AsyncStream<WebSocketClientEvent> { toClient }

    init() {
        (toServer, serverSink) = AsyncStream<[UInt8]>.makeStream()
        (toClient, clientSink) = AsyncStream<WebSocketClientEvent>.makeStream()
    }

    var clientCode: UInt16? { state.withLock { $0.clientCode } }

    func forward(_ text: [UInt8]) -> Bool {
        state.withLock { state in
            guard state.open else { return false }
            serverSink.yield(text)
            return true
        }
    }

    func deliver(_ event: WebSocketClientEvent) {
        state.withLock { state in
            guard state.open else { return }
            clientSink.yield(event)
        }
    }

    func end(code: UInt16?, reason: String, byClient: Bool) {
        state.withLock { state in
            guard state.open else { return }
            state.open = false
            if byClient { state.clientCode = code }
            clientSink.yield(.closed(code: code, reason: reason))
            clientSink.finish()
            serverSink.finish()
        }
    }
}
