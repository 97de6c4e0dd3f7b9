import TandemWire

/// A fault-injecting TCP relay: accepts connections on a port and relays each to a fixed target, adding
/// latency, jitter and a bandwidth cap, and resetting or blackholing connections on demand or periodically.
/// Used in process by tests and the demo, and by `tandem proxy`.
///
/// Thread-safety: every method is safe from any thread. `setFaults`, `resetAll`, `blackholeAll` and
/// `restore` take effect asynchronously on each connection's loop, shortly after they return; they affect
/// exactly the connections open at the moment of the call.
/// Ordering: bytes of one connection leave in the order they arrived in each direction, whatever the faults.
/// Memory: per direction the proxy holds at most `maxHeldBytes` plus one read; beyond that, and whenever
/// the receiving side is not writable, it stops reading (TCP flow control pushes back on the sender).
public final class FaultProxy: Sendable {
    /// The port the proxy listens on (the one the kernel picked when 0 was asked for).
    public let port: Int
    /// The address the proxy listens on.
    public let localAddress: SocketAddress
    /// Where connections are relayed to.
    public let targetHost: String
    /// The target's port.
    public let targetPort: Int
    private let hub: ProxyHub
    private let listener: TCPListener

    private init(hub: ProxyHub, listener: TCPListener) {
        self.hub = hub
        self.listener = listener
        port = listener.port
        localAddress = listener.localAddress
        targetHost = hub.targetHost
        targetPort = hub.targetPort
    }

    /// Binds `listenHost:listenPort` and starts relaying every accepted connection to `targetHost:targetPort`
    /// (connected anew per client, on the client's loop) with `faults` applied.
    /// - Parameters:
    ///   - listenPort: 0 picks a free port (read it from `port`).
    ///   - random: the source of jitter draws; pass a seeded generator for reproducible runs.
    ///   - maxHeldBytes: how much one direction of one connection may hold before it stops reading.
    ///   - connectionConfiguration: write-queue marks and close bound of both connections of each pair.
    /// - Throws: `IOError` when the listening socket cannot be bound (e.g. the port is in use).
    public static func start(
        listenHost: String = "127.0.0.1",
        listenPort: Int,
        targetHost: String,
        targetPort: Int,
        faults: Faults = .none,
        group: EventLoopGroup,
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        maxHeldBytes: Int = 1 << 20,
        connectionConfiguration: TCPConnectionConfiguration = TCPConnectionConfiguration()
    ) throws -> FaultProxy {
        guard (0...65535).contains(listenPort) else { throw IOError.invalidPort(listenPort) }
        guard (1...65535).contains(targetPort) else { throw IOError.invalidPort(targetPort) }
        let hub = ProxyHub(
            targetHost: targetHost,
            targetPort: targetPort,
            faults: faults,
            timerLoop: group.next(),
            connectionConfiguration: connectionConfiguration,
            maxHeldBytes: max(1, maxHeldBytes),
            random: random
        )
        let listener = try TCPListener.bind(
            host: listenHost, port: listenPort, group: group,
            configuration: TCPListener.Configuration(connection: connectionConfiguration)
        ) { connection in
            hub.adopt(connection)
        }
        hub.startTimers()
        return FaultProxy(hub: hub, listener: listener)
    }

    /// The faults in force now.
    public var faults: Faults { hub.faults }

    /// Replaces the faults. Delay and bandwidth changes apply to chunks read from now on (chunks already
    /// held keep their times, and order is kept); a changed `dropEvery`/`blackholeEvery` restarts that timer.
    public func setFaults(_ faults: Faults) {
        hub.setFaults(faults)
    }

    /// Resets every connection pair open now: both the client and the target get a TCP RST
    /// (`ECONNRESET`), as when the network between them is lost.
    public func resetAll() {
        hub.forEachPair { $0.reset() }
    }

    /// Blackholes every connection pair open now: nothing is forwarded in either direction and nothing is
    /// closed, so both peers keep a half-open socket. Bytes read before are held (not lost), so `restore()`
    /// resumes an intact stream; a side that closed meanwhile is reported to the other as a reset on
    /// `restore()`. Connections accepted later are unaffected.
    public func blackholeAll() {
        hub.forEachPair { $0.blackhole() }
    }

    /// Ends the blackhole of every connection pair open now (held bytes are delivered, in order).
    public func restore() {
        hub.forEachPair { $0.restore() }
    }

    /// What the proxy has done so far.
    public var statistics: Statistics { hub.counters.snapshot }

    /// Stops listening and the periodic timers, and closes every relayed connection (both peers see the
    /// connection end). Returns once the listening socket and every open connection are closed. Idempotent.
    public func shutdown() async {
        let listener = listener
        if (try? await listener.loop.submit { listener.close() }) == nil {
            listener.close()
        }
        await hub.shutdown()
    }
}
