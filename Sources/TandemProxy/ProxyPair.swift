import TandemWire

/// One relayed connection: the accepted client connection, the connection the proxy opened to the target,
/// and the two directions between them. It is the handler of both connections.
///
/// Loop-bound: both connections live on the client's loop, so every method runs on that one thread and the
/// pair needs no lock. Faults are applied as each chunk is read; triggers (`reset`, `blackhole`, `restore`,
/// `close`) are sent here with `loop.execute` by the `ProxyHub`.
final class ProxyPair: TCPConnectionHandler, @unchecked Sendable {
    let id: Int
    let loop: EventLoop
    private let hub: ProxyHub
    private var client: TCPConnection?
    private var upstream: TCPConnection?
    /// client → target.
    private let outbound: ProxyDirection
    /// target → client.
    private let inbound: ProxyDirection
    private var clientClosed = false
    private var upstreamSettled = false
    private var torndown = false
    private var blackholed = false
    /// A side closed while blackholed: it is reported to the other side only when the network "recovers".
    private var closedWhileBlackholed = false
    private var removed = false

    init(id: Int, client: TCPConnection, hub: ProxyHub) {
        self.id = id
        self.client = client
        self.hub = hub
        loop = client.loop
        outbound = ProxyDirection(loop: loop, counters: hub.counters, maxHeldBytes: hub.maxHeldBytes)
        inbound = ProxyDirection(loop: loop, counters: hub.counters, maxHeldBytes: hub.maxHeldBytes)
        outbound.source = client
        inbound.sink = client
        // Nothing is read from the client until the target is connected.
        client.pauseReading()
    }

    // MARK: - Target connection

    /// Opens the connection to the target on the client's loop; the client is closed if that fails.
    func connectUpstream() async {
        do {
            _ = try await TCPConnection.connect(
                host: hub.targetHost, port: hub.targetPort, on: loop, configuration: hub.connectionConfiguration
            ) { connection in
                self.attach(connection)
                return self
            }
        } catch {
            loop.execute { self.upstreamFailed() }
        }
    }

    private func attach(_ connection: TCPConnection) {
        upstreamSettled = true
        guard !torndown, !clientClosed else {
            // Reset or gone while connecting: the target sees the same as the client did.
            loop.execute { connection.abort(reset: true) }
            return
        }
        upstream = connection
        outbound.sink = connection
        inbound.source = connection
        if blackholed {
            outbound.hold()
            inbound.hold()
        }
        outbound.updateReading()
        inbound.updateReading()
    }

    private func upstreamFailed() {
        upstreamSettled = true
        if !torndown {
            hub.counters.failedUpstreams.add(1, ordering: .relaxed)
            torndown = true
            outbound.discard()
            inbound.discard()
            client?.abort()
        }
        removeIfDone()
    }

    // MARK: - Triggers

    /// Resets both connections (RST to both peers), as a lost network looks. Idempotent.
    func reset() {
        guard !torndown else { return }
        // Counted before the connections are aborted, so whoever sees a reset also sees it counted.
        hub.counters.resets.add(1, ordering: .relaxed)
        tearDown(reset: true)
    }

    /// Closes both connections at once (FIN, queued bytes dropped). Idempotent.
    func close() {
        tearDown(reset: false)
    }

    /// Stops forwarding in both directions without closing anything. Idempotent.
    func blackhole() {
        guard !torndown, !blackholed else { return }
        blackholed = true
        hub.counters.blackholes.add(1, ordering: .relaxed)
        outbound.hold()
        inbound.hold()
    }

    /// Resumes forwarding after `blackhole()`; a side that closed meanwhile now resets the other one.
    func restore() {
        guard !torndown, blackholed else { return }
        blackholed = false
        if closedWhileBlackholed {
            tearDown(reset: true)
            return
        }
        outbound.release()
        inbound.release()
    }

    @discardableResult
    private func tearDown(reset: Bool) -> Bool {
        guard !torndown else { return false }
        torndown = true
        outbound.discard()
        inbound.discard()
        client?.abort(reset: reset)
        upstream?.abort(reset: reset)
        return true
    }

    // MARK: - TCPConnectionHandler

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        guard !torndown else { return }
        let direction = connection === client ? outbound : inbound
        let faults = hub.faults
        direction.receive(bytes, faults: faults) { hub.jitterSample(upTo: faults.jitterNanoseconds) }
    }

    func connectionWritabilityChanged(_ connection: TCPConnection, isWritable: Bool) {
        guard !torndown else { return }
        // `connection` is the sink of the direction that writes to it.
        let direction = connection === client ? inbound : outbound
        direction.pump()
        direction.updateReading()
    }

    func connectionDidReachEndOfInput(_ connection: TCPConnection) {
        guard !torndown else { return }
        (connection === client ? outbound : inbound).sourceDidEnd()
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {
        let isClient = connection === client
        if isClient { clientClosed = true } else { upstream = nil }
        if !torndown {
            if blackholed {
                // A real blackhole would not carry the news either.
                closedWhileBlackholed = true
            } else if error != nil {
                tearDown(reset: true)
            } else {
                // Relay what is still held for the other side, then close it gracefully.
                (isClient ? outbound : inbound).sourceDidClose()
                let other = isClient ? inbound : outbound
                other.updateReading()
            }
        }
        if isClient { client = nil }
        removeIfDone()
    }

    private func removeIfDone() {
        guard !removed, clientClosed || client == nil, upstreamSettled, upstream == nil else { return }
        removed = true
        outbound.discard()
        inbound.discard()
        hub.remove(self)
    }
}
