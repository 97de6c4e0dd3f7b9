import TandemSynchronization
import TandemWire

/// The state a `FaultProxy` shares with its relayed pairs: the current faults, the random source for
/// jitter, the registry of live pairs, the periodic fault timers and the counters.
///
/// Thread-safe: one `Locked` guards faults, registry and timers, another the random source; pairs on every
/// loop read the faults once per chunk.
final class ProxyHub: Sendable {
    private struct State {
        var faults: FaultProxy.Faults
        var pairs: [Int: ProxyPair] = [:]
        var nextID = 0
        var isShutDown = false
        var dropTimer: ScheduledTask?
        var blackholeTimer: ScheduledTask?
    }

    /// Which periodic fault a timer drives.
    private enum Periodic {
        case drop, blackhole
    }

    let targetHost: String
    let targetPort: Int
    let connectionConfiguration: TCPConnectionConfiguration
    let maxHeldBytes: Int
    let counters = ProxyCounters()
    /// The loop the periodic timers run on.
    private let timerLoop: EventLoop
    private let state: Locked<State>
    private let random: Locked<any RandomNumberGenerator & Sendable>

    init(
        targetHost: String,
        targetPort: Int,
        faults: FaultProxy.Faults,
        timerLoop: EventLoop,
        connectionConfiguration: TCPConnectionConfiguration,
        maxHeldBytes: Int,
        random: any RandomNumberGenerator & Sendable
    ) {
        self.targetHost = targetHost
        self.targetPort = targetPort
        self.timerLoop = timerLoop
        self.connectionConfiguration = connectionConfiguration
        self.maxHeldBytes = maxHeldBytes
        state = Locked(State(faults: faults))
        self.random = Locked(random)
    }

    // MARK: - Faults

    /// The faults in force now.
    var faults: FaultProxy.Faults {
        state.withLock { $0.faults }
    }

    /// Replaces the faults; the periodic timers restart when their period changed.
    func setFaults(_ faults: FaultProxy.Faults) {
        state.withLock { state in
            let old = state.faults
            state.faults = faults
            guard !state.isShutDown else { return }
            if old.dropPeriod != faults.dropPeriod {
                state.dropTimer?.cancel()
                state.dropTimer = faults.dropPeriod.map { arm(.drop, after: $0) }
            }
            if old.blackholePeriod != faults.blackholePeriod {
                state.blackholeTimer?.cancel()
                state.blackholeTimer = faults.blackholePeriod.map { arm(.blackhole, after: $0) }
            }
        }
    }

    /// Starts the periodic timers of the initial faults.
    func startTimers() {
        state.withLock { state in
            state.dropTimer = state.faults.dropPeriod.map { arm(.drop, after: $0) }
            state.blackholeTimer = state.faults.blackholePeriod.map { arm(.blackhole, after: $0) }
        }
    }

    /// One uniform draw from `0...bound` nanoseconds.
    func jitterSample(upTo bound: UInt64) -> UInt64 {
        guard bound > 0 else { return 0 }
        return random.withLock { generator in
            bound == .max ? generator.next() : generator.next() % (bound + 1)
        }
    }

    private func arm(_ kind: Periodic, after period: Duration) -> ScheduledTask {
        timerLoop.schedule(after: period) { [weak self] in self?.fire(kind, period: period) }
    }

    private func fire(_ kind: Periodic, period: Duration) {
        // Re-arm first (under the lock, so a concurrent `setFaults` either sees this timer or replaces it).
        let stillArmed = state.withLock { state -> Bool in
            guard !state.isShutDown else { return false }
            switch kind {
            case .drop:
                guard state.faults.dropPeriod == period else { return false }
                state.dropTimer = arm(.drop, after: period)
            case .blackhole:
                guard state.faults.blackholePeriod == period else { return false }
                state.blackholeTimer = arm(.blackhole, after: period)
            }
            return true
        }
        guard stillArmed else { return }
        switch kind {
        case .drop:
            counters.dropRounds.add(1, ordering: .relaxed)
            forEachPair { $0.reset() }
        case .blackhole:
            counters.blackholeRounds.add(1, ordering: .relaxed)
            forEachPair { $0.blackhole() }
        }
    }

    // MARK: - Pairs

    /// Makes the handler for a newly accepted client connection (on its loop) and starts connecting to the
    /// target. After shutdown the connection is closed at once.
    func adopt(_ client: TCPConnection) -> any TCPConnectionHandler {
        let pair = state.withLock { state -> ProxyPair? in
            guard !state.isShutDown else { return nil }
            let pair = ProxyPair(id: state.nextID, client: client, hub: self)
            state.nextID += 1
            state.pairs[pair.id] = pair
            return pair
        }
        guard let pair else {
            let refusal = RefusedConnection()
            client.loop.execute { client.abort() }
            return refusal
        }
        counters.accepted.add(1, ordering: .relaxed)
        counters.open.add(1, ordering: .relaxed)
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            Task(executorPreference: LoopTaskExecutor(loop: client.loop)) { await pair.connectUpstream() }
        } else {
            Task { await pair.connectUpstream() }
        }
        return pair
    }

    /// Forgets a pair whose connections are both closed.
    func remove(_ pair: ProxyPair) {
        let found = state.withLock { $0.pairs.removeValue(forKey: pair.id) != nil }
        if found { counters.open.subtract(1, ordering: .relaxed) }
    }

    /// Runs `action` on every pair open at this moment, each on its own loop. Pairs accepted later are not
    /// affected even if the action has not run yet.
    func forEachPair(_ action: @escaping @Sendable (ProxyPair) -> Void) {
        for pair in state.withLock({ Array($0.pairs.values) }) {
            pair.loop.execute { action(pair) }
        }
    }

    /// Stops the timers, refuses new connections and closes every pair; returns once every pair's
    /// connections are closed (or their loop is gone).
    func shutdown() async {
        let pairs = state.withLock { state -> [ProxyPair] in
            state.isShutDown = true
            state.dropTimer?.cancel()
            state.blackholeTimer?.cancel()
            state.dropTimer = nil
            state.blackholeTimer = nil
            return Array(state.pairs.values)
        }
        for pair in pairs {
            _ = try? await pair.loop.submit { pair.close() }
        }
    }
}

/// The handler of a connection accepted while the proxy shuts down: it is aborted at once.
private final class RefusedConnection: TCPConnectionHandler {
    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {}
    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {}
}
