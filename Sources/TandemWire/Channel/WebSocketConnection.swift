import TandemSynchronization

/// One established WebSocket connection, server or client role: it drives the RFC 6455 state machine over a
/// `TCPConnection`, delivers whole messages to its ``WebSocketHandler``, runs the close handshake and applies
/// the idle and slow-consumer rules. Both roles share this type; they differ only in their opening handshake.
///
/// Threading: every public method is safe from any thread (it hops to `loop` when called elsewhere). Messages
/// sent from one thread go out in call order. Handler callbacks always run on `loop`'s thread.
package final class WebSocketConnection: @unchecked Sendable {
    /// The close code sent when the idle timeout fires (no frame received for too long).
    package static let idleTimeoutCode: UInt16 = 4000
    /// The close code reported when the send queue overflowed and the connection was dropped (slow consumer).
    package static let sendQueueOverflowCode: UInt16 = 4002

    private static let nextID = AtomicValue<UInt64>(1)

    /// A new number from the sequence connections are numbered by. Connections that reach a server without a
    /// socket take theirs here too, so that of two connections of one client the newer always has the larger id.
    package static func makeID() -> UInt64 {
        nextID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// A number unique to this connection within the process, for logs and maps.
    package let id: UInt64
    /// The loop that owns the connection; every callback runs there.
    package let loop: EventLoop
    /// The subprotocol negotiated in the opening handshake, if any.
    package let subprotocol: String?
    /// The peer's address as `ip:port` (for logs), nil when the socket could not tell.
    package let remoteAddress: String?
    /// Which end of the connection this side is.
    package let role: WebSocketRole
    /// Receives the connection's events. Set on the loop thread (the server sets it to what its accept
    /// closure returned); released after `webSocketDidClose`.
    package var handler: (any WebSocketHandler)?

    let tcp: TCPConnection
    /// Called on the loop when the write queue crosses the high-water mark (false) or drains (true).
    var writabilityObserver: ((Bool) -> Void)?
    /// Called on the loop for every pong received.
    var pongObserver: (([UInt8]) -> Void)?
    /// Called on the loop once, right after the handler heard `webSocketDidClose`.
    var closeObserver: ((WebSocketConnection) -> Void)?

    private var machine: WebSocketConnectionStateMachine
    private let idleTimeout: Duration?
    private let closeWait: Duration
    private var closeTimer: ScheduledTask?
    private var peerClose: (code: UInt16?, reason: String)?
    private var localClose: (code: UInt16, reason: String)?
    private var started = false
    private var heldOutput: [[UInt8]] = []
    private var closeReported = false
    private let queuedSnapshot = AtomicValue<Int>(0)
    /// Work for this connection (frames, sends, the close) handed to the loop and not run yet. While any
    /// waits, work from the loop thread itself waits behind it too: what was sent first goes out first, on
    /// whichever thread each send was made (a welcome released by the storage thread, then a `join` sent
    /// from the loop, must not swap).
    private let queuedWork = AtomicValue<Int>(0)

    /// Wraps `tcp` (on its loop thread) once the opening handshake has succeeded. Nothing is read or written
    /// before ``start(leftover:)``; sends made earlier are held until then.
    init(
        tcp: TCPConnection, role: WebSocketRole, subprotocol: String?, maxMessageSize: Int,
        idleTimeout: Duration?, closeWait: Duration
    ) {
        id = Self.makeID()
        loop = tcp.loop
        self.tcp = tcp
        self.role = role
        self.subprotocol = subprotocol
        remoteAddress = (try? tcp.remoteAddress()).map { "\($0)" }
        // A client masks every frame: its keys come from the secure generator in batches, not one call per frame.
        let encoder = role.masksOutgoingFrames ? WebSocketFrameEncoder(pooledKeysFrom: SecureRandom()) : WebSocketFrameEncoder()
        machine = WebSocketConnectionStateMachine(role: role, maxMessageSize: maxMessageSize, textAsBytes: true, encoder: encoder)
        self.idleTimeout = idleTimeout
        self.closeWait = closeWait
    }

    // MARK: - Public API (any thread)

    /// Sends a text message; `utf8` must be valid UTF-8. Dropped once the close handshake has started.
    package func sendText(_ utf8: [UInt8]) {
        // On the loop (a handler answering a message) the send runs inline: no closure is allocated per message.
        guard runsInline else {
            queue { self.sendNow { (machine, output) throws(WebSocketSendError) in try machine.sendText(utf8: utf8, into: &output) } }
            return
        }
        sendNow { (machine, output) throws(WebSocketSendError) in try machine.sendText(utf8: utf8, into: &output) }
    }

    /// Sends a binary message. Dropped once the close handshake has started.
    package func sendBinary(_ bytes: [UInt8]) {
        guard runsInline else {
            queue { self.sendNow { (machine, output) throws(WebSocketSendError) in try machine.sendBinary(bytes, into: &output) } }
            return
        }
        sendNow { (machine, output) throws(WebSocketSendError) in try machine.sendBinary(bytes, into: &output) }
    }

    /// Sends a ping (at most 125 bytes of payload); the peer answers with a pong.
    package func sendPing(_ payload: [UInt8] = []) {
        precondition(payload.count <= WebSocketFrameEncoder.maxControlPayload, "a ping carries at most 125 bytes")
        onLoop { self.sendNow { (machine, output) throws(WebSocketSendError) in try machine.sendPing(payload, into: &output) } }
    }

    /// Queues a pre-encoded frame shared with other connections, without copying it. Server role only (a
    /// client must mask every frame, so a shared unmasked frame is refused by a precondition).
    package func send(_ frame: WebSocketOutboundFrame) {
        precondition(role == .server, "WebSocketOutboundFrame is unmasked: only a server connection may send it")
        if loop.sendsDirectly && runsInline {
            writeShared(frame.frame)
        } else {
            // A fan-out from another thread sends one frame to many connections: no closure per recipient.
            queuedWork.add(1, ordering: .releasing)
            if !loop.enqueue(frame.frame, to: self) { queuedWork.subtract(1, ordering: .releasing) }
        }
    }

    /// Starts the close handshake with `code` and `reason`: sends the close frame, then waits a bounded time for
    /// the peer's close before closing the TCP connection regardless. Idempotent; later sends are dropped.
    package func close(code: UInt16, reason: String) {
        onLoop { self.closeNow(code: code, reason: reason) }
    }

    /// Drops the TCP connection at once, without a close handshake. The handler hears `webSocketDidClose`.
    package func abort() {
        onLoop { self.tcp.abort() }
    }

    /// Bytes accepted for sending and not yet taken by the kernel. Exact on the loop thread; elsewhere the value
    /// seen at the last write or writability change.
    package var queuedBytes: Int {
        loop.inEventLoop ? tcp.queuedBytes : queuedSnapshot.load(ordering: .relaxed)
    }

    // MARK: - Loop thread

    /// Takes over the TCP connection: writes what was sent before, arms the idle timer and processes the bytes
    /// that arrived right after the opening handshake.
    func start(leftover: [UInt8]) {
        started = true
        tcp.handler = WebSocketChannel(connection: self)
        for bytes in heldOutput { tcp.write(bytes) }
        heldOutput = []
        if let idleTimeout, machine.state == .open { tcp.armIdleTimer(idleTimeout) }
        if !leftover.isEmpty { leftover.withUnsafeBytes { receive($0) } }
    }

    func receive(_ bytes: UnsafeRawBufferPointer) {
        if let idleTimeout, machine.state == .open { tcp.armIdleTimer(idleTimeout) }
        let result = machine.receive(bytes)
        // Protocol replies (pongs, the close echo) go out before anything the handler sends in reaction, so a
        // close the handler starts is never followed by a pong.
        if !result.bytesToWrite.isEmpty { write(result.bytesToWrite) }
        if let error = result.error, localClose == nil {
            localClose = (error.closeCode.rawValue, error.description)
        }
        for event in result.events {
            switch event {
            case .textBytes(let utf8): handler?.webSocketDidReceiveText(self, utf8)
            case .text(let text): handler?.webSocketDidReceiveText(self, Array(text.utf8))
            case .binary(let bytes): handler?.webSocketDidReceiveBinary(self, bytes)
            case .ping: break
            case .pong(let payload): pongObserver?(payload)
            case .close(let code, let reason): peerClose = (code?.rawValue, reason)
            }
        }
        if result.closeSocket {
            closeTimer?.cancel()
            tcp.disarmIdleTimer()
            tcp.close()
        }
    }

    func idleTimeoutFired() {
        guard machine.state == .open else { return }
        if let handler {
            handler.webSocketIdleTimeoutFired(self)
        } else {
            closeNow(code: Self.idleTimeoutCode, reason: "idle timeout")
        }
    }

    func writabilityChanged(_ isWritable: Bool) {
        queuedSnapshot.store(tcp.queuedBytes, ordering: .relaxed)
        writabilityObserver?(isWritable)
    }

    func tcpDidClose(error: IOError?) {
        closeTimer?.cancel()
        closeTimer = nil
        guard !closeReported else { return }
        closeReported = true
        queuedSnapshot.store(0, ordering: .relaxed)
        let code: UInt16?
        let reason: String
        if case .writeQueueOverflow(let limit) = error, peerClose == nil {
            code = Self.sendQueueOverflowCode
            reason = "send queue overflow (more than \(limit) bytes waiting)"
        } else if let localClose {
            // This side started the close (or failed the connection): its code says why.
            (code, reason) = localClose
        } else if let peerClose {
            (code, reason) = peerClose
        } else {
            code = nil
            reason = error?.description ?? "connection closed without a close frame"
        }
        let owner = handler
        handler = nil
        owner?.webSocketDidClose(self, code: code, reason: reason, clean: peerClose?.code == WebSocketCloseCode.normalClosure.rawValue)
        let observer = closeObserver
        closeObserver = nil
        writabilityObserver = nil
        pongObserver = nil
        observer?(self)
    }

    // MARK: - Internals

    private func onLoop(_ work: @escaping @Sendable () -> Void) {
        if runsInline {
            work()
        } else {
            queue(work)
        }
    }

    /// Whether work for this connection may run now: on its loop thread, with nothing handed to the loop before it.
    private var runsInline: Bool {
        loop.inEventLoop && queuedWork.load(ordering: .acquiring) == 0
    }

    /// Hands `work` to the loop, behind everything handed to it for this connection before.
    private func queue(_ work: @escaping @Sendable () -> Void) {
        queuedWork.add(1, ordering: .releasing)
        let accepted = loop.execute { [self] in
            queuedWork.subtract(1, ordering: .releasing)
            work()
        }
        if !accepted { queuedWork.subtract(1, ordering: .releasing) }
    }

    /// Encodes and writes one frame on the loop thread; false (nothing written) once the close handshake has
    /// started, since RFC 6455 allows no data after a close frame.
    @discardableResult
    func sendNow(_ encode: (inout WebSocketConnectionStateMachine, inout [UInt8]) throws(WebSocketSendError) -> Void) -> Bool {
        var output: [UInt8] = []
        do {
            try encode(&machine, &output)
        } catch {
            return false
        }
        write(output)
        return true
    }

    private func closeNow(code: UInt16, reason: String) {
        guard machine.state == .open, !closeReported else { return }
        localClose = (code, reason)
        var output: [UInt8] = []
        machine.close(code: WebSocketCloseCode(code), reason: reason, into: &output)
        write(output)
        tcp.disarmIdleTimer()
        closeTimer = loop.schedule(after: closeWait) { [weak self] in
            // The peer did not answer the close frame in time: drop the connection.
            self?.tcp.abort()
        }
    }

    private func write(_ bytes: [UInt8]) {
        guard started else {
            heldOutput.append(bytes)
            return
        }
        tcp.write(bytes)
        queuedSnapshot.store(tcp.queuedBytes, ordering: .relaxed)
    }

    private func write(_ shared: SharedBytes) {
        write(shared.bytes)
    }
}

extension WebSocketConnection: SharedFrameTarget {
    /// A frame `send(_:)` handed to the loop, now its turn.
    func writeSharedFrame(_ frame: SharedBytes) {
        queuedWork.subtract(1, ordering: .releasing)
        writeShared(frame)
    }

    private func writeShared(_ frame: SharedBytes) {
        guard machine.canSendData else { return }
        write(frame)
    }
}
