#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TandemSynchronization

/// A listening TCP socket. It accepts on one loop and hands each connection to the group's loops round-robin,
/// where the connection lives for the rest of its life.
///
/// Beyond `Configuration.maxConnections` live connections, new ones are accepted and closed at once (so the
/// kernel's backlog never fills with clients that will not be served). Thread-safe: `close()` may be called
/// from anywhere.
package final class TCPListener: @unchecked Sendable, IOSelectable {
    /// Listener settings.
    package struct Configuration: Sendable, Equatable {
        /// The kernel's queue of connections not yet accepted (`listen(2)` backlog; capped by `somaxconn`).
        package var backlog: Int32
        /// The most live connections at once; more are closed right after `accept`.
        package var maxConnections: Int
        /// Settings for every accepted connection.
        package var connection: TCPConnectionConfiguration
        /// The kernel receive buffer (`SO_RCVBUF`) of every accepted connection; nil keeps the kernel's
        /// autotuning. Set on the listening socket, so connections inherit it before their handshake: a buffer
        /// shrunk after the handshake could fall below the window already advertised, and the kernel then
        /// drops segments it had invited, stalling the stream for retransmission timeouts.
        package var receiveBufferSize: Int32?

        /// Defaults: backlog 1024, no connection limit, default connection settings, kernel-tuned buffers.
        package init(
            backlog: Int32 = 1024,
            maxConnections: Int = .max,
            connection: TCPConnectionConfiguration = TCPConnectionConfiguration(),
            receiveBufferSize: Int32? = nil
        ) {
            self.backlog = backlog
            self.maxConnections = maxConnections
            self.connection = connection
            self.receiveBufferSize = receiveBufferSize
        }
    }

    /// The address the socket is bound to; with port 0 requested, this holds the port the kernel picked.
    package let localAddress: SocketAddress
    /// The loop that accepts.
    package let loop: EventLoop
    let group: EventLoopGroup
    let configuration: Configuration
    private let listenFD: Int32
    private let makeHandler: @Sendable (TCPConnection) -> any TCPConnectionHandler
    private let tls: TLSServerSettings?
    private let counter = ConnectionCounter()
    private let rejected = AtomicValue<Int>(0)
    private let closeRequested = AtomicValue<Bool>(false)
    // Loop-thread state.
    private var token: UInt64 = 0
    private var registered = false
    private var closed = false

    /// The bound port (the ephemeral one when 0 was requested).
    package var port: Int { localAddress.port }

    /// Live connections accepted by this listener and not yet closed.
    package var connectionCount: Int { counter.current }

    /// Connections closed at once because `maxConnections` were live.
    package var rejectedConnectionCount: Int { rejected.load(ordering: .relaxed) }

    private init(
        fd: Int32,
        localAddress: SocketAddress,
        group: EventLoopGroup,
        configuration: Configuration,
        tls: TLSServerSettings?,
        makeHandler: @escaping @Sendable (TCPConnection) -> any TCPConnectionHandler
    ) {
        listenFD = fd
        self.tls = tls
        self.localAddress = localAddress
        self.group = group
        loop = group.next()
        self.configuration = configuration
        self.makeHandler = makeHandler
    }

    /// Binds and listens on `host:port` (`SO_REUSEADDR` on) and starts accepting on one of `group`'s loops.
    /// `host` is an IPv4/IPv6 literal (`0.0.0.0`, `::`, `127.0.0.1`, `::1`) or a name, resolved with a blocking
    /// `getaddrinfo` (call at start-up, not on a loop); the first address is used. Port 0 picks a free port.
    ///
    /// `makeHandler` runs on the accepted connection's loop thread before any byte is delivered. With `tls`,
    /// every accepted connection speaks TLS: its handler reads and writes plaintext once the handshake is done.
    /// - Throws: `IOError` when the address cannot be resolved or the socket cannot be bound (e.g. EADDRINUSE).
    package static func bind(
        host: String,
        port: Int,
        group: EventLoopGroup,
        configuration: Configuration = Configuration(),
        tls: TLSServerSettings? = nil,
        handler makeHandler: @escaping @Sendable (TCPConnection) -> any TCPConnectionHandler
    ) throws -> TCPListener {
        guard let address = try SocketAddress.resolveBlocking(host: host, port: port).first else {
            throw IOError.unresolvableHost(host: host, message: "no address")
        }
        let fd = try Socket.makeStream(family: address.family)
        let bound: SocketAddress
        do {
            try Socket.setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1, what: "SO_REUSEADDR")
            if let size = configuration.receiveBufferSize {
                try Socket.setOption(fd, level: SOL_SOCKET, name: SO_RCVBUF, value: size, what: "SO_RCVBUF")
            }
            let status = address.withSockAddr { systemBind(fd, $0, $1) }
            guard status == 0 else { throw IOError.lastError("bind to \(address)") }
            guard listen(fd, configuration.backlog) == 0 else { throw IOError.lastError("listen on \(address)") }
            bound = try Socket.localAddress(fd)
        } catch {
            _ = systemClose(fd)
            throw error
        }
        let listener = TCPListener(fd: fd, localAddress: bound, group: group, configuration: configuration, tls: tls,
                                   makeHandler: makeHandler)
        let loop = listener.loop
        if loop.inEventLoop {
            listener.startAccepting()
        } else if !loop.execute({ listener.startAccepting() }) {
            _ = systemClose(fd)
            throw IOError.eventLoopShutdown
        }
        return listener
    }

    /// Stops accepting and closes the listening socket. Connections already accepted stay open. Idempotent,
    /// thread-safe; takes effect on the listener's loop.
    package func close() {
        guard !closeRequested.exchange(true, ordering: .relaxed) else { return }
        if loop.inEventLoop {
            closeNow()
        } else if !loop.execute({ self.closeNow() }) {
            closeNow()  // the loop is gone; nothing else touches the descriptor any more
        }
    }

    private func startAccepting() {
        guard !closed else { return }
        guard !closeRequested.load(ordering: .relaxed) else {
            closeNow()
            return
        }
        do {
            token = try loop.register(self, fd: listenFD, interest: [.read])
            registered = true
        } catch {
            closeNow()
        }
    }

    private func closeNow() {
        guard !closed else { return }
        closed = true
        if registered { loop.deregister(fd: listenFD) }
        registered = false
        _ = systemClose(listenFD)
    }

    func loopDidShutDown() {
        closeNow()
    }

    func handleIO(_ events: IOEvents) {
        // A bounded batch per wake-up keeps a connection storm from starving the loop's other work.
        for _ in 0..<256 {
            let fd: Int32
            do {
                guard let accepted = try Socket.accept(listenFD) else { return }
                fd = accepted
            } catch {
                // Typically EMFILE/ENFILE (out of descriptors) or ENOBUFS/ENOMEM. The pending connection stays
                // queued and the level-triggered selector would report it again at once, so back off briefly.
                pauseAccepting()
                return
            }
            guard counter.tryAcquire(limit: configuration.maxConnections) else {
                rejected.add(1, ordering: .relaxed)
                _ = systemClose(fd)
                continue
            }
            let target = group.next()
            let connection = configuration.connection
            let counter = counter
            let makeHandler = makeHandler
            let tls = tls
            if target === loop {
                TCPConnection.adopt(fd: fd, on: target, configuration: connection, tls: tls, counter: counter, makeHandler: makeHandler)
            } else if !target.execute({
                TCPConnection.adopt(fd: fd, on: target, configuration: connection, tls: tls, counter: counter, makeHandler: makeHandler)
            }) {
                _ = systemClose(fd)
                counter.release()
            }
        }
    }

    /// Stops watching the listening socket for 100 ms, then resumes.
    private func pauseAccepting() {
        guard registered else { return }
        try? loop.reregister(fd: listenFD, token: token, interest: [])
        loop.schedule(after: .milliseconds(100)) { [weak self] in
            guard let self, !self.closed, self.registered else { return }
            try? self.loop.reregister(fd: self.listenFD, token: self.token, interest: [.read])
        }
    }
}

@inline(__always)
private func systemBind(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    bind(fd, address, length)
}
