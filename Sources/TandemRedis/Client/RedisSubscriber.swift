import TandemSynchronization
import TandemWire

/// One connection in Redis's subscribed mode for sharded Pub/Sub (`SSUBSCRIBE`): what is published to
/// its channels reaches `receive` in publishing order, on the connection's event loop.
///
/// Pub/Sub is at most once: a message published while the connection is down, or before Redis
/// confirmed a subscription (`.subscribed`), is never delivered. A reader that must not miss anything
/// reads the underlying data after the confirmation and after a reconnect. When the connection closes
/// (or Redis answers with an error, e.g. `MOVED` from a cluster), `closed` is called once and the
/// subscriber stays closed: open a new one. Thread-safe.
package final class RedisSubscriber: Sendable {
    /// What Redis pushes to a subscribed connection.
    package enum Push: Sendable, Equatable {
        /// A message published to `channel`.
        case message(channel: String, payload: [UInt8])
        /// Redis confirmed the subscription: every message published from now on arrives.
        case subscribed(channel: String)
        /// Redis confirmed the end of a subscription.
        case unsubscribed(channel: String)
    }

    /// Where this connection goes.
    package let endpoint: RedisEndpoint
    private let core: RedisSubscriberCore

    private init(endpoint: RedisEndpoint, core: RedisSubscriberCore) {
        self.endpoint = endpoint
        self.core = core
    }

    deinit {
        core.close()
    }

    /// Opens a subscriber connection to `endpoint` on `loop`.
    /// - Parameters:
    ///   - receive: every push, in order, on the loop thread (keep it short).
    ///   - closed: called once when the connection ends, with why.
    /// - Throws: `RedisError.unavailable` when the TCP connection cannot be made within `timeout`.
    package static func connect(
        to endpoint: RedisEndpoint,
        on loop: EventLoop,
        limits: RESPLimits = RESPLimits(),
        timeout: Duration = .seconds(10),
        receive: @escaping @Sendable (Push) -> Void,
        closed: @escaping @Sendable (RedisError) -> Void
    ) async throws(RedisError) -> RedisSubscriber {
        let core = RedisSubscriberCore(endpoint: endpoint, loop: loop, receive: receive, closed: closed)
        do {
            _ = try await TCPConnection.connect(host: endpoint.host, port: endpoint.port, timeout: timeout, on: loop) { tcp in
                core.attach(tcp)
                return RedisSubscriberHandler(core: core, parser: RESPParser(limits: limits))
            }
        } catch {
            throw .unavailable(endpoint: endpoint, attempts: 1, lastError: "\(error)")
        }
        return RedisSubscriber(endpoint: endpoint, core: core)
    }

    /// False once the connection has closed.
    package var isOpen: Bool { core.isOpen }

    /// Subscribes to `channels` (one `SSUBSCRIBE` each, so channels of different cluster slots may be
    /// mixed); each is confirmed by a `.subscribed` push.
    package func subscribe(_ channels: [String]) {
        core.send(channels.map { ["SSUBSCRIBE", RedisArgument($0)] })
    }

    /// Ends the subscriptions to `channels`; messages already on the way may still arrive.
    package func unsubscribe(_ channels: [String]) {
        core.send(channels.map { ["SUNSUBSCRIBE", RedisArgument($0)] })
    }

    /// Closes the connection (`closed` is called).
    package func close() {
        core.close()
    }
}

/// The subscriber's state shared by callers and the loop thread.
final class RedisSubscriberCore: Sendable {
    private struct State {
        var tcp: TCPConnection?
        var closed = false
        var failure: RedisError?
    }

    let endpoint: RedisEndpoint
    let loop: EventLoop
    private let receive: @Sendable (RedisSubscriber.Push) -> Void
    private let closed: @Sendable (RedisError) -> Void
    private let state = Locked(State())

    init(endpoint: RedisEndpoint, loop: EventLoop, receive: @escaping @Sendable (RedisSubscriber.Push) -> Void,
         closed: @escaping @Sendable (RedisError) -> Void) {
        self.endpoint = endpoint
        self.loop = loop
        self.receive = receive
        self.closed = closed
    }

    var isOpen: Bool { state.withLock { !$0.closed && $0.tcp != nil } }

    func attach(_ tcp: TCPConnection) {
        state.withLock { $0.tcp = tcp }
    }

    func send(_ commands: [[RedisArgument]]) {
        guard !commands.isEmpty, let tcp = state.withLock({ $0.closed ? nil : $0.tcp }) else { return }
        var bytes: [UInt8] = []
        for command in commands { RESPEncoder.command(command, into: &bytes) }
        let encoded = bytes
        _ = loop.execute { tcp.write(encoded) }
    }

    /// One frame from Redis (on the loop thread).
    func deliver(_ value: RESPValue, tcp: TCPConnection) {
        let parts: [RESPValue]
        switch value {
        case .array(let items), .push(let items): parts = items
        case .error(let text):
            fail(.fromReply(text), tcp: tcp)
            return
        default:
            fail(.unexpectedReply(command: "SSUBSCRIBE", reply: "\(value)"), tcp: tcp)
            return
        }
        guard parts.count >= 2, let kind = parts[0].string, let channel = parts[1].string else {
            fail(.unexpectedReply(command: "SSUBSCRIBE", reply: "\(value)"), tcp: tcp)
            return
        }
        switch kind.lowercased() {
        case "smessage", "message":
            guard parts.count == 3, case .bulkString(let payload) = parts[2] else {
                fail(.unexpectedReply(command: "SSUBSCRIBE", reply: "\(value)"), tcp: tcp)
                return
            }
            receive(.message(channel: channel, payload: payload))
        case "ssubscribe", "subscribe": receive(.subscribed(channel: channel))
        case "sunsubscribe", "unsubscribe": receive(.unsubscribed(channel: channel))
        default: break
        }
    }

    func fail(_ error: RedisError, tcp: TCPConnection) {
        state.withLock { $0.failure = error }
        tcp.abort()
    }

    /// The connection closed (on the loop thread).
    func didClose(error: IOError?) {
        let failure = state.withLock { state -> RedisError? in
            guard !state.closed else { return nil }
            state.closed = true
            return state.failure ?? .connectionLost(endpoint: endpoint, reason: error.map { "\($0)" } ?? "closed")
        }
        if let failure { closed(failure) }
    }

    func close() {
        guard let tcp = state.withLock({ $0.tcp }) else { return }
        _ = loop.execute { tcp.close() }
    }
}

/// Feeds a subscriber connection's bytes to the parser; confined to the loop thread.
final class RedisSubscriberHandler: TCPConnectionHandler {
    private let core: RedisSubscriberCore
    private var parser: RESPParser

    init(core: RedisSubscriberCore, parser: RESPParser) {
        self.core = core
        self.parser = parser
    }

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        parser.append(bytes)
        do {
            while let value = try parser.next() {
                core.deliver(value, tcp: connection)
            }
        } catch {
            core.fail(.protocolViolation(error), tcp: connection)
        }
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {
        core.didClose(error: error)
    }
}
