#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One TCP connection, bound to one `EventLoop`: a non-blocking socket whose received bytes go to its handler
/// and whose writes are queued and flushed in batches.
///
/// Threading: every method except `send(_:)` must be called on `loop`'s thread (from a handler callback or
/// via `connection.loop.execute { ... }`); the connection never locks. Writes queued during one loop iteration
/// leave together, in order, in as few `sendmsg` calls as the kernel allows, at the end of that iteration.
///
/// Memory: the object holds no read buffer (reads go to the loop's shared buffer) and an empty write queue
/// holds no allocation, so an idle connection costs about two hundred bytes of user memory.
///
/// TLS: a connection made with a `TLSContext` (``connect(host:port:timeout:on:configuration:tls:handler:)``,
/// or accepted by a listener bound with TLS) encrypts on the same loop through a `TLSEngine`: its handler reads
/// and writes plaintext exactly as on a plain connection. Writes of one iteration are sealed together in the
/// flush phase (few records, one `sendmsg`), and a close sends TLS's close_notify before the FIN.
package final class TCPConnection: @unchecked Sendable, IOSelectable, IdleTracked {
    enum State: UInt8 {
        case connecting, open, closing, closed
    }

    /// The loop that owns this connection; all its callbacks run there.
    package let loop: EventLoop
    /// The owner of the connection's events. Replaceable on the loop thread (e.g. when a protocol upgrade
    /// hands the connection to a new handler); released after `connectionDidClose`.
    package var handler: (any TCPConnectionHandler)?

    /// The settings this connection was created with (write-queue marks, close bound).
    package let configuration: TCPConnectionConfiguration
    let fd: Int32
    private var token: UInt64 = 0
    private var queue = WriteQueue()
    private var state: State
    private var interest: IOInterest = []
    private var wantsWrite = false
    private var inputOpen = true
    private var readingPaused = false
    private var eofSeen = false
    private var outputShutdownRequested = false
    private var outputShut = false
    private var flushScheduled = false
    private var overflowed = false
    /// Unwritten bytes of a single write larger than `maxQueuedBytes` that was accepted into an empty
    /// queue (it is the queue's head); the limit applies to what is queued behind it.
    private var oversizedHead = 0
    private var closeNotified = false
    private var unwritableNoticePending = false
    /// False from the `write` that takes the queue past the high-water mark until it drains to the low-water
    /// mark. A producer can loop `while connection.isWritable { write(...) }`; the matching
    /// `connectionWritabilityChanged` calls follow in the loop's flush phase, one per change, in order.
    package private(set) var isWritable = true
    private var closeError: IOError?
    private var closeTimer: ScheduledTask?
    private var connectAttempt: ConnectAttempt?
    private var counter: ConnectionCounter?
    /// The connection's TLS, when it speaks TLS.
    private var tls: TLSEngine?
    /// Plaintext written this iteration, sealed into `queue` in the flush phase.
    private var plaintext: [UInt8] = []
    /// What a TLS server connection writes, unencrypted, to a client that sent plain text (then it closes).
    private var plaintextReply: [UInt8]?
    private var closeNotifySent = false
    var idleDeadline: UInt64 = 0
    var idleSlot = -1

    init(fd: Int32, loop: EventLoop, configuration: TCPConnectionConfiguration, state: State) {
        self.fd = fd
        self.loop = loop
        self.configuration = configuration
        self.state = state
    }

    // MARK: - Public state

    /// True from the moment the connection is established until `close()`, `abort()` or a failure.
    package var isOpen: Bool { state == .open }

    /// True once the descriptor is closed.
    package var isClosed: Bool { state == .closed }

    /// Bytes accepted by `write` and not yet taken by the kernel.
    package var queuedBytes: Int { queue.byteCount + plaintext.count }

    /// Whether the connection speaks TLS.
    package var isSecure: Bool { tls != nil }

    /// The local address of the socket. Call on the loop thread while the connection is not closed.
    package func localAddress() throws -> SocketAddress {
        try Socket.localAddress(fd)
    }

    /// The peer's address. Call on the loop thread while the connection is not closed.
    package func remoteAddress() throws -> SocketAddress {
        try Socket.peerAddress(fd)
    }

    // MARK: - Writing

    /// Queues `bytes` to be sent after everything queued before. Ignored once the connection is closing or
    /// closed, or after `shutdownOutput()`. A write that would take the queue past
    /// `configuration.maxQueuedBytes` is dropped and the connection is aborted with `IOError.writeQueueOverflow`.
    /// One exception: a single write larger than the limit is accepted when nothing is queued (a message the
    /// owner has already built, e.g. a resume's replay, must be deliverable), and the limit then bounds what
    /// queues behind it, so memory stays within the limit plus that one message.
    package func write(_ bytes: [UInt8]) {
        assert(loop.inEventLoop, "TCPConnection.write called off its event loop")
        guard state == .open, !outputShutdownRequested, !overflowed, !bytes.isEmpty else { return }
        let queued = queuedBytes
        if queued == 0 && bytes.count > configuration.maxQueuedBytes {
            oversizedHead = bytes.count
            enqueue(bytes)
            if isWritable {
                isWritable = false
                unwritableNoticePending = true
            }
        } else if queued - oversizedHead + bytes.count > configuration.maxQueuedBytes {
            overflowed = true
        } else {
            enqueue(bytes)
            if isWritable, queued + bytes.count > configuration.highWaterMark {
                isWritable = false
                unwritableNoticePending = true
            }
        }
        scheduleFlush()
    }

    @inline(__always)
    private func enqueue(_ bytes: [UInt8]) {
        if tls == nil {
            queue.append(bytes)
        } else {
            plaintext.append(contentsOf: bytes)
        }
    }

    /// Queues a shared buffer without copying it; otherwise exactly like `write(_: [UInt8])`.
    package func write(_ shared: SharedBytes) {
        write(shared.bytes)
    }

    /// Thread-safe `write`: writes at once on the loop thread, otherwise hops there first. Sends from one
    /// thread keep their order.
    package func send(_ bytes: [UInt8]) {
        if loop.inEventLoop {
            write(bytes)
        } else {
            loop.execute { self.write(bytes) }
        }
    }

    /// Thread-safe `write` of a shared buffer (see `send(_: [UInt8])`).
    package func send(_ shared: SharedBytes) {
        send(shared.bytes)
    }

    // MARK: - Reading

    /// Stops reading from the socket: the kernel buffers, then the peer's sends stall (TCP flow control).
    /// Use it to propagate backpressure, e.g. while the other side of a relay is not writable.
    package func pauseReading() {
        assert(loop.inEventLoop, "TCPConnection.pauseReading called off its event loop")
        guard !readingPaused else { return }
        readingPaused = true
        updateInterest()
    }

    /// Resumes reading after `pauseReading()`.
    package func resumeReading() {
        assert(loop.inEventLoop, "TCPConnection.resumeReading called off its event loop")
        guard readingPaused else { return }
        readingPaused = false
        updateInterest()
    }

    /// True between `pauseReading()` and `resumeReading()`.
    package var isReadingPaused: Bool { readingPaused }

    // MARK: - Closing

    /// Half-closes: once the queued bytes are written, sends FIN; reading continues. Later writes are ignored.
    package func shutdownOutput() {
        assert(loop.inEventLoop, "TCPConnection.shutdownOutput called off its event loop")
        guard state == .open, !outputShutdownRequested else { return }
        outputShutdownRequested = true
        scheduleFlush()
    }

    /// Closes gracefully: stops delivering input, writes what is queued, sends FIN, waits for the peer's end of
    /// stream (so unread input cannot turn into a reset that destroys the last bytes written), then releases the
    /// descriptor. Bounded by `configuration.closeTimeout`; past it the connection is dropped. Idempotent.
    package func close() {
        assert(loop.inEventLoop, "TCPConnection.close called off its event loop")
        guard state == .open else { return }
        state = .closing
        loop.idle.disarm(self)
        closeTimer = loop.schedule(after: configuration.closeTimeout) { [weak self] in self?.closeTimedOut() }
        updateInterest()
        scheduleFlush()
    }

    /// Closes at once, discarding queued bytes. With `reset`, sets `SO_LINGER` 0 so the peer gets a RST
    /// (it sees "connection reset") instead of a FIN. `connectionDidClose` follows with `error: nil`. Idempotent.
    package func abort(reset: Bool = false) {
        assert(loop.inEventLoop, "TCPConnection.abort called off its event loop")
        guard state == .open || state == .closing else { return }
        finishClose(error: nil, reset: reset)
    }

    // MARK: - Idle timer

    /// Arms (or re-arms) the idle timer: unless re-armed or disarmed, `connectionIdleTimeoutFired` is called
    /// once `timeout` has passed (late by at most the loop's `idleSweepInterval`). Re-arming is a couple of
    /// stores, cheap enough to do for every message received. Ignored unless the connection is open.
    package func armIdleTimer(_ timeout: Duration) {
        assert(loop.inEventLoop, "TCPConnection.armIdleTimer called off its event loop")
        guard state == .open else { return }
        loop.armIdle(self, deadline: MonotonicTime.deadline(after: timeout, from: loop.now))
    }

    /// Stops the idle timer, if armed.
    package func disarmIdleTimer() {
        assert(loop.inEventLoop, "TCPConnection.disarmIdleTimer called off its event loop")
        loop.idle.disarm(self)
    }

    func idleTimerFired() {
        guard state == .open else { return }
        if let handler {
            handler.connectionIdleTimeoutFired(self)
        } else {
            close()
        }
    }

    // MARK: - Loop callbacks

    func handleIO(_ events: IOEvents) {
        switch state {
        case .connecting:
            finishConnect()
            return
        case .closed:
            return
        case .open, .closing:
            break
        }
        if events.contains(.writable) { flushNow() }
        guard state != .closed else { return }
        if interest.contains(.read), !events.isDisjoint(with: [.readable, .error, .hangup]) {
            readNow()
        } else if !events.isDisjoint(with: [.error, .hangup]) {
            let code = Socket.pendingError(fd)
            if code == 0, eofSeen, state == .closing {
                finishClose(error: nil)
            } else {
                finishClose(error: .system(operation: "connection", errno: code != 0 ? code : ECONNRESET))
            }
        }
    }

    func loopDidShutDown() {
        switch state {
        case .connecting:
            failConnect(.eventLoopShutdown)
        case .open, .closing:
            finishClose(error: .eventLoopShutdown)
        case .closed:
            break
        }
    }

    /// Called in the loop's flush phase for every connection that scheduled a flush this iteration.
    func flushFromLoop() {
        flushScheduled = false
        switch state {
        case .closed:
            notifyClosed()
        case .open, .closing:
            if overflowed {
                finishClose(error: .writeQueueOverflow(limit: configuration.maxQueuedBytes), reset: true)
            } else {
                flushNow()
            }
        case .connecting:
            break
        }
    }

    // MARK: - Internals

    private func scheduleFlush() {
        guard !flushScheduled else { return }
        flushScheduled = true
        loop.flushList.append(self)
    }

    private func readNow() {
        let buffer = loop.readBuffer
        // A few reads per readiness event keep a fast sender from starving the loop's other connections.
        for _ in 0..<4 {
            // recv rather than read: the socket call skips the file-layer checks of read(2).
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 {
                if let tls {
                    receiveSecured(count: count, through: tls)
                } else if state == .open, let handler {
                    handler.connectionDidReceive(self, bytes: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
                }
                // Stop when the handler closed or paused us, or when the socket is drained.
                guard state != .closed, inputOpen, !(state == .open && readingPaused), count == buffer.count else { return }
            } else if count == 0 {
                inputEnded()
                return
            } else {
                let code = currentErrno()
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { return }
                finishClose(error: .system(operation: "read", errno: code))
                return
            }
        }
    }

    private func inputEnded() {
        eofSeen = true
        inputOpen = false
        updateInterest()
        switch state {
        case .closing:
            if queue.isEmpty, outputShut { finishClose(error: nil) }
        case .open:
            if outputShut {
                finishClose(error: nil)
            } else if let handler {
                handler.connectionDidReachEndOfInput(self)
            } else {
                close()
            }
        case .connecting, .closed:
            break
        }
    }

    private func flushNow() {
        guard state == .open || state == .closing else { return }
        if let tls, !sealForTLS(tls) { return }
        while !queue.isEmpty {
            let written = queue.withIOVectors(loop.ioVectors, capacity: EventLoop.ioVectorCapacity) { count in
                sendVectors(count)
            }
            if written >= 0 {
                queue.consume(written)
                oversizedHead = max(0, oversizedHead - written)
                continue
            }
            let code = Int32(-written)
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK {
                setWriteInterest(true)
                updateWritability()
                return
            }
            finishClose(error: .system(operation: "write", errno: code))
            return
        }
        setWriteInterest(false)
        if outputShutdownRequested || state == .closing, !outputShut {
            outputShut = true
            _ = shutdown(fd, Int32(SHUT_WR))
        }
        if outputShut, eofSeen {
            finishClose(error: nil)
            return
        }
        updateWritability()
    }

    /// Sends the first `count` prepared vectors; returns bytes written or `-errno`.
    private func sendVectors(_ count: Int) -> Int {
        #if os(Linux)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0  // SO_NOSIGPIPE is set on the socket instead
        #endif
        let result: Int
        if count == 1 {
            result = systemSend(fd, loop.ioVectors[0].iov_base, loop.ioVectors[0].iov_len, flags)
        } else {
            var message = msghdr()
            message.msg_iov = loop.ioVectors
            #if os(Linux)
            message.msg_iovlen = count
            #else
            message.msg_iovlen = Int32(count)
            #endif
            result = sendmsg(fd, &message, flags)
        }
        return result >= 0 ? result : -Int(currentErrno())
    }

    private func updateWritability() {
        guard state == .open else { return }
        if unwritableNoticePending {
            unwritableNoticePending = false
            handler?.connectionWritabilityChanged(self, isWritable: false)
            guard state == .open else { return }
        }
        if isWritable, queuedBytes > configuration.highWaterMark {
            isWritable = false
            handler?.connectionWritabilityChanged(self, isWritable: false)
        } else if !isWritable, queuedBytes <= configuration.lowWaterMark {
            isWritable = true
            handler?.connectionWritabilityChanged(self, isWritable: true)
        }
    }

    private func setWriteInterest(_ on: Bool) {
        guard wantsWrite != on else { return }
        wantsWrite = on
        updateInterest()
    }

    private func updateInterest() {
        guard state != .closed, state != .connecting else { return }
        var wanted: IOInterest = []
        // A closing connection keeps reading (and discarding) even when paused: it waits for the peer's FIN.
        if inputOpen, (state == .open && !readingPaused) || state == .closing { wanted.insert(.read) }
        if wantsWrite { wanted.insert(.write) }
        guard wanted != interest else { return }
        interest = wanted
        try? loop.reregister(fd: fd, token: token, interest: wanted)
    }

    private func closeTimedOut() {
        guard state == .closing else { return }
        closeTimer = nil
        // Everything was written and only the peer's FIN is missing: that is still a clean close.
        finishClose(error: queue.isEmpty ? nil : .closeTimeout, reset: !queue.isEmpty)
    }

    /// Releases the descriptor and schedules `connectionDidClose` for the flush phase.
    private func finishClose(error: IOError?, reset: Bool = false) {
        guard state != .closed else { return }
        state = .closed
        closeError = error
        scheduleFlush()
        closeTimer?.cancel()
        closeTimer = nil
        loop.idle.disarm(self)
        loop.deregister(fd: fd)
        if reset { Socket.setLingerZero(fd) }
        _ = systemClose(fd)
        queue.removeAll()
        plaintext = []
        oversizedHead = 0
        counter?.release()
        counter = nil
        tls = nil
        if let attempt = connectAttempt {
            // The TLS handshake of an outgoing connection did not finish: the caller of `connect` hears why.
            connectAttempt = nil
            attempt.timer?.cancel()
            closeNotified = true
            let reason = error ?? .tls(.handshakeFailed(reason: "the server closed the connection during the handshake"))
            attempt.continuation.resume(throwing: reason)
        }
    }

    private func notifyClosed() {
        guard !closeNotified else { return }
        closeNotified = true
        let owner = handler
        handler = nil
        owner?.connectionDidClose(self, error: closeError)
        closeError = nil
    }
}

// MARK: - TLS

extension TCPConnection {
    /// Decrypts `count` received bytes (in the loop's read buffer) and delivers the plaintext; answers the
    /// handshake; turns a close_notify into the end of input and a TLS failure into a close.
    private func receiveSecured(count: Int, through tls: TLSEngine) {
        let buffer = loop.readBuffer
        do {
            try tls.receive(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), scratch: buffer) { plaintext in
                if connectAttempt != nil { completeConnect() }
                if state == .open, let handler { handler.connectionDidReceive(self, bytes: plaintext) }
            }
        } catch {
            failSecured(error, tls)
            return
        }
        // The handler may have closed or aborted the connection while it read.
        guard state != .closed else { return }
        if tls.hasOutbound {
            queue.append(tls.takeOutbound())
            scheduleFlush()
        }
        if connectAttempt != nil, tls.isHandshakeComplete {
            completeConnect()
            updateInterest()
        }
        if tls.peerClosed, inputOpen, state != .closed { inputEnded() }
    }

    private func failSecured(_ error: TLSError, _ tls: TLSEngine) {
        if case .notTLS(isServer: true) = error, let reply = plaintextReply {
            // A plain client on a TLS port gets a plain answer it can read, then a clean close.
            self.tls = nil
            queue.append(reply)
            close()
            return
        }
        // Whatever alert OpenSSL wrote goes out first, best effort.
        if tls.hasOutbound {
            queue.append(tls.takeOutbound())
            flushNow()
        }
        finishClose(error: .tls(error))
    }

    /// Seals the iteration's plaintext (and, when the output is closing, the close_notify) into the write
    /// queue. Returns false when the connection failed.
    private func sealForTLS(_ tls: TLSEngine) -> Bool {
        do {
            if !plaintext.isEmpty {
                try tls.send(plaintext)
                plaintext = []
            }
        } catch {
            finishClose(error: .tls(error))
            return false
        }
        if outputShutdownRequested || state == .closing, !closeNotifySent, tls.isHandshakeComplete {
            closeNotifySent = true
            tls.close()
        }
        if tls.hasOutbound { queue.append(tls.takeOutbound()) }
        return true
    }
}

@inline(__always)
private func systemSend(_ fd: Int32, _ base: UnsafeMutableRawPointer?, _ length: Int, _ flags: Int32) -> Int {
    send(fd, base, length, flags)
}

// MARK: - Accepting and connecting

extension TCPConnection {
    /// Wraps a freshly accepted descriptor on the loop thread: registers it, asks `makeHandler` for its
    /// handler (which may already write or close), then starts reading.
    static func adopt(
        fd: Int32,
        on loop: EventLoop,
        configuration: TCPConnectionConfiguration,
        tls: TLSServerSettings? = nil,
        counter: ConnectionCounter?,
        makeHandler: @Sendable (TCPConnection) -> any TCPConnectionHandler
    ) {
        if configuration.noDelay { try? Socket.setNoDelay(fd) }
        let connection = TCPConnection(fd: fd, loop: loop, configuration: configuration, state: .open)
        connection.counter = counter
        if let tls {
            guard let engine = try? TLSEngine(context: tls.context) else {
                _ = systemClose(fd)
                counter?.release()
                return
            }
            connection.tls = engine
            connection.plaintextReply = tls.plaintextReply
        }
        do {
            connection.token = try loop.register(connection, fd: fd, interest: [])
        } catch {
            _ = systemClose(fd)
            counter?.release()
            return
        }
        connection.handler = makeHandler(connection)
        connection.updateInterest()
    }

    /// Opens a connection to `host:port`. IP literals connect directly; host names are resolved first off the
    /// loop (`getaddrinfo` on a dispatch queue) and tried in the resolver's order until one connects.
    ///
    /// `makeHandler` runs on the loop thread as soon as the connection is established and before any byte is
    /// delivered; it may write at once (e.g. a request). The returned connection is already live.
    ///
    /// With `tls`, the connection is established once the TLS handshake has completed and the server's
    /// certificate was verified for `host` (SNI is sent for names); `makeHandler` runs then.
    /// - Parameter timeout: the bound for each address tried (the TLS handshake included).
    /// - Throws: `IOError.connectTimeout`, `IOError.system` (e.g. ECONNREFUSED), `IOError.unresolvableHost`,
    ///   `IOError.eventLoopShutdown`, `IOError.tls` (a certificate problem, or a server that does not speak TLS;
    ///   the other addresses of a name are not tried then).
    package static func connect(
        host: String,
        port: Int,
        timeout: Duration = .seconds(10),
        on loop: EventLoop,
        configuration: TCPConnectionConfiguration = TCPConnectionConfiguration(),
        tls: TLSContext? = nil,
        handler makeHandler: @escaping @Sendable (TCPConnection) -> any TCPConnectionHandler
    ) async throws -> TCPConnection {
        let addresses = try await SocketAddress.resolve(host: host, port: port)
        var lastError: any Error = IOError.unresolvableHost(host: host, message: "no address")
        for address in addresses {
            do {
                return try await connect(to: address, timeout: timeout, on: loop, configuration: configuration, tls: tls,
                                         serverName: host, handler: makeHandler)
            } catch let error as IOError {
                if case .tls = error { throw error }
                lastError = error
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// Opens a connection to `address` (see `connect(host:port:timeout:on:configuration:tls:handler:)`); with
    /// `tls`, the certificate must be valid for `serverName` (the address itself when nil).
    package static func connect(
        to address: SocketAddress,
        timeout: Duration = .seconds(10),
        on loop: EventLoop,
        configuration: TCPConnectionConfiguration = TCPConnectionConfiguration(),
        tls: TLSContext? = nil,
        serverName: String? = nil,
        handler makeHandler: @escaping @Sendable (TCPConnection) -> any TCPConnectionHandler
    ) async throws -> TCPConnection {
        try await withCheckedThrowingContinuation { continuation in
            let attempt = ConnectAttempt(continuation: continuation, address: address, makeHandler: makeHandler,
                                         tls: tls, serverName: serverName ?? address.host)
            let accepted = loop.execute {
                startConnect(attempt, timeout: timeout, on: loop, configuration: configuration)
            }
            if !accepted { continuation.resume(throwing: IOError.eventLoopShutdown) }
        }
    }

    private static func startConnect(
        _ attempt: ConnectAttempt,
        timeout: Duration,
        on loop: EventLoop,
        configuration: TCPConnectionConfiguration
    ) {
        let fd: Int32
        do {
            fd = try Socket.makeStream(family: attempt.address.family)
            if configuration.noDelay { try Socket.setNoDelay(fd) }
        } catch {
            attempt.continuation.resume(throwing: error)
            return
        }
        let status = attempt.address.withSockAddr { systemConnect(fd, $0, $1) }
        let code = status == 0 ? 0 : currentErrno()
        guard status == 0 || code == EINPROGRESS || code == EINTR else {
            _ = systemClose(fd)
            attempt.continuation.resume(throwing: IOError.system(operation: "connect to \(attempt.address)", errno: code))
            return
        }
        let connection = TCPConnection(fd: fd, loop: loop, configuration: configuration, state: .connecting)
        connection.connectAttempt = attempt
        do {
            connection.token = try loop.register(connection, fd: fd, interest: status == 0 ? [] : [.write])
        } catch {
            _ = systemClose(fd)
            connection.state = .closed
            connection.closeNotified = true
            attempt.continuation.resume(throwing: error)
            return
        }
        if status == 0 {
            connection.finishConnect()
        } else {
            connection.interest = [.write]
            // A strong capture: finishing or failing the attempt cancels the timer, which releases it (a weak one
            // would slow every retain of the connection for its whole life; see `ScheduledTask`).
            attempt.timer = loop.schedule(after: timeout) {
                connection.failConnect(.connectTimeout(host: attempt.address.host, port: attempt.address.port))
            }
        }
    }

    /// The socket became writable (or failed) while connecting: finish or fail.
    private func finishConnect() {
        guard state == .connecting, let attempt = connectAttempt else { return }
        let code = Socket.pendingError(fd)
        if code != 0 {
            failConnect(.system(operation: "connect to \(attempt.address)", errno: code))
            return
        }
        state = .open
        interest = [.write]
        if let context = attempt.tls {
            // Established once the handshake completes (`completeConnect`); the attempt's timer bounds it.
            do {
                let engine = try TLSEngine(context: context, serverName: attempt.serverName)
                try engine.start()
                tls = engine
                queue.append(engine.takeOutbound())
                scheduleFlush()
                updateInterest()
            } catch {
                finishClose(error: .tls(error))
            }
            return
        }
        completeConnect()
        updateInterest()
    }

    /// Hands the established connection to its handler and to the caller of `connect`.
    private func completeConnect() {
        guard let attempt = connectAttempt else { return }
        connectAttempt = nil
        attempt.timer?.cancel()
        handler = attempt.makeHandler(self)
        attempt.continuation.resume(returning: self)
    }

    private func failConnect(_ error: IOError) {
        guard let attempt = connectAttempt else { return }
        guard state == .connecting else {
            finishClose(error: error, reset: true)  // the TLS handshake timed out
            return
        }
        connectAttempt = nil
        attempt.timer?.cancel()
        state = .closed
        closeNotified = true  // no handler was ever created
        loop.deregister(fd: fd)
        _ = systemClose(fd)
        attempt.continuation.resume(throwing: error)
    }
}

@inline(__always)
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}

/// The state of an outgoing connection until it is established.
final class ConnectAttempt: @unchecked Sendable {
    let continuation: CheckedContinuation<TCPConnection, any Error>
    let address: SocketAddress
    let makeHandler: @Sendable (TCPConnection) -> any TCPConnectionHandler
    /// The TLS to speak, and the name the server's certificate must be valid for.
    let tls: TLSContext?
    let serverName: String
    /// Set and read on the loop thread only.
    var timer: ScheduledTask?

    init(
        continuation: CheckedContinuation<TCPConnection, any Error>,
        address: SocketAddress,
        makeHandler: @escaping @Sendable (TCPConnection) -> any TCPConnectionHandler,
        tls: TLSContext?,
        serverName: String
    ) {
        self.continuation = continuation
        self.address = address
        self.makeHandler = makeHandler
        self.tls = tls
        self.serverName = serverName
    }
}
