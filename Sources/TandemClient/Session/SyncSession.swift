import TandemKit
import TandemProtocol
import TandemWireCore

/// A networked Tandem participant: keeps one WebSocket connection to a room alive and drives the
/// pure core with it — `SyncEngine` (outbox, rebase), `ConnectionLifecycle` (reconnect rules,
/// backoff with full jitter) and `HeartbeatMonitor` (ping, dead-connection detection).
///
/// An actor, because every input (socket frames, timers, app calls) mutates one shared engine and
/// must be applied one at a time in arrival order; an actor gives that without locks held across
/// suspension points. Frames are handled synchronously on the actor in the order the socket
/// delivers them, and every outgoing message goes through one ordered queue per connection, so
/// patches leave in seq order. `states` and `events` each have a single consumer, keep at most
/// `configuration.eventBufferLimit` unread items (the oldest go first), and finish when the session
/// ends (stopped, or closed for good by the server); `snapshots()` gives any number of observers the
/// latest visible state.
public actor SyncSession {
    /// Lifecycle states as they change (idle → connecting → handshaking → connected → …): a stream of its
    /// own on every access, with every state from that moment on (ask before `start()` to see them all).
    /// Ends when the session ends.
    public nonisolated var states: AsyncStream<ConnectionState> { stateSink.stream() }
    /// Everything the app renders or reports, in order: a stream of its own on every access, so any number
    /// of listeners (an app's log and a ``SharedRoom``) each get every event from the moment they asked (ask
    /// before `start()` to see them all). Ends when the session ends.
    public nonisolated var events: AsyncStream<SyncSessionEvent> { eventSink.stream() }
    /// The server's sync URL (`ws://` or `wss://host:port/v1/sync`).
    public nonisolated let url: String
    /// The stable client id (survives reconnects, scopes patch seqs).
    public nonisolated let clientID: String
    /// Open while the session is established (from each `welcome` until the connection is lost), with
    /// the identity the server confirmed: the kit's `Gate` for "only after login" work. Operations
    /// submitted with `run` wait for the next `welcome` and run in order; `onEveryOpen` hooks run again
    /// after every reconnect; when the session ends, waiting and later operations fail with
    /// `GateError.finished`.
    /// The session's own presence follows the same rule: it travels in `hello`, so it is applied as the
    /// session is established and again on every reconnect, never before.
    public nonisolated let established: Gate<SessionIdentity>

    private let gateCommands: AsyncStream<GateCommand>.Continuation
    private let stateSink: FanOut<ConnectionState>
    private let eventSink: FanOut<SyncSessionEvent>
    private let tokenProvider: @Sendable () async throws -> String
    private let configuration: SyncSessionConfiguration
    private let transport: any SyncTransport
    private let persistence: (any SyncPersistence)?
    private let clock: @Sendable () -> Int64
    private var random: JitterSource

    private var engine: SyncEngine
    private var lifecycle: ConnectionLifecycle
    private var presence: JSONValue?
    private var estimator: RTTEstimator
    private var heartbeat: HeartbeatMonitor?
    /// The missed pongs last reported (`linkDegraded`), 0 while the link is healthy.
    private var reportedMisses = 0
    private var socket: (any SyncTransportConnection)?
    private var outbox: AsyncStream<[UInt8]>.Continuation?
    private var generation = 0
    private var helloSentAt: Int64?
    /// The `exp` of the token the connection runs on (the hello's or the last refresh's), when readable.
    private var tokenExpiry: Int64?
    /// When a fresh token is next asked for (the `clock`'s nanoseconds); nil while none is due.
    private var refreshAt: Int64?
    /// Whether the token provider is being asked for a refresh now.
    private var refreshing = false
    /// Set once the current connection sent something unreadable: its remaining frames are ignored while it closes.
    private var discardingFrames = false
    private var timer: (deadline: Int64, task: Task<Void, Never>)?
    private var runTask: Task<Void, Never>?
    private var backoffTask: Task<Void, Never>?
    private var stopping = false
    /// Set by `suspend()` until `resume()`: the loop closes the connection and waits instead of retrying.
    private var suspendRequested = false
    /// The loop waiting in `suspended` for `resume()` or `stop()`.
    private var resumeWaiter: CheckedContinuation<Void, Never>?
    /// Skip the backoff before the next attempt (`reconnectNow()`, `resume()`).
    private var retryAtOnce = false
    private var finished = false
    private var lastState: ConnectionState?
    private var lastSnapshot: SyncSnapshot
    private var drainWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiterID = 0
    private var snapshotObservers: [Int: AsyncStream<SyncSnapshot>.Continuation] = [:]
    private var nextObserverID = 0
    /// Persistence: whether the engine changed since the state last handed to `save`.
    private var unsaved = false
    private var saving = false
    private var saveTimer: Task<Void, Never>?
    /// Patches with a newly bound seq, held until a save holding that seq completes (then sent, in order).
    private var held: [ClientMessage] = []
    private var saveWaiters: [CheckedContinuation<Void, Never>] = []
    /// Seqs below this are bound in a saved state: a patch with one may go out without waiting for a save.
    private var savedNextSeq: Int64

    /// Creates a session; nothing happens until `start()`.
    /// - Parameters:
    ///   - url: the server's sync URL.
    ///   - clientID: stable client id; reuse it across launches to keep exactly-once delivery.
    ///   - tokenProvider: called before every connection attempt (tokens expire).
    ///   - presence: presence data announced in `hello` (and so re-announced after every reconnect).
    ///   - configuration: flow control, reconnect policy, timeouts.
    ///   - transport: how connections are opened; by default the platform's (`PlatformTransport`):
    ///     `URLSessionWebSocketTransport` on Apple platforms, TandemWire's own loop on Linux (`wss://` verified
    ///     against the system's trust store); `WireTransport(group:tls:)` for shared loops or a private CA.
    ///   - persistence: where the session's state is kept across launches (nil: memory only). A saved state
    ///     is restored at once — the visible state, the pending patches, the resume point — and its client
    ///     id replaces `clientID` (the saved seqs belong to it).
    ///   - clock: monotonic time in nanoseconds (heartbeat, pacing, backoff reset).
    ///   - random: the source of backoff jitter.
    public init(
        url: String, clientID: String, tokenProvider: @escaping @Sendable () async throws -> String,
        presence: JSONValue? = nil, configuration: SyncSessionConfiguration = SyncSessionConfiguration(),
        transport: any SyncTransport = PlatformTransport.make(), persistence: (any SyncPersistence)? = nil,
        clock: @escaping @Sendable () -> Int64 = SyncSession.monotonicNanoseconds,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.url = url
        let saved = persistence?.saved
        self.clientID = saved?.clientID ?? clientID
        self.persistence = persistence
        self.tokenProvider = tokenProvider
        self.presence = presence
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.random = JitterSource(base: random)
        let engine = saved.map { SyncEngine(restoring: $0, configuration: configuration.engine) }
            ?? SyncEngine(clientID: clientID, configuration: configuration.engine)
        self.engine = engine
        savedNextSeq = engine.nextSeq
        lifecycle = ConnectionLifecycle(policy: configuration.reconnect)
        estimator = configuration.rtt
        lastSnapshot = SyncSnapshot(rev: engine.rev, pending: engine.pending.count, state: engine.visible.root)
        let gate = Gate<SessionIdentity>(name: "Tandem session \(clientID)")
        established = gate
        // One ordered channel to the gate: open, close and fail must reach it in the order they happened.
        let (commands, commandSink) = AsyncStream<GateCommand>.makeStream()
        gateCommands = commandSink
        Task {
            for await command in commands {
                switch command {
                case .open(let identity): await gate.open(identity)
                case .close: await gate.close()
                case .finish(let reason): await gate.finish(reason)
                }
            }
        }
        stateSink = FanOut(bufferLimit: configuration.eventBufferLimit)
        eventSink = FanOut(bufferLimit: configuration.eventBufferLimit)
    }

    /// Nanoseconds of the process's continuous clock (the default session clock).
    public static let monotonicNanoseconds: @Sendable () -> Int64 = {
        let origin = ContinuousClock.now
        return {
            let elapsed = ContinuousClock.now - origin
            return elapsed.totalNanoseconds
        }
    }()

    // MARK: - Observation

    /// The current lifecycle state.
    public var state: ConnectionState { lifecycle.state }

    /// The visible document, confirmed rev and pending count right now.
    public var snapshot: SyncSnapshot { currentSnapshot() }

    /// Local patches the server has not acknowledged or rejected yet.
    public var pendingCount: Int { engine.pending.count }

    /// The paths paced newest-wins: the configuration's and those declared (`declareHighRate`).
    public var highRatePaths: Set<JSONPointer> { engine.highRatePaths }

    /// Who the server recognised this session as in its last `welcome` (user, this client id, role), nil
    /// before the first one. A participant is this session when its user and client id both match:
    /// another user may name the same client id.
    public var identity: SessionIdentity? {
        guard let user = engine.user, let role = engine.role else { return nil }
        return SessionIdentity(user: user, client: clientID, role: role)
    }

    /// Whether the connection is up but its pongs are late (a weak network); see `SyncSessionEvent.linkDegraded`.
    public var isLinkDegraded: Bool { heartbeat?.isDegraded ?? false }

    /// The visible state now and after every change, for any number of observers: each stream keeps only
    /// the newest unread snapshot (a slow renderer skips intermediate states, never the last one) and
    /// finishes when the session ends. Ending the iteration unsubscribes.
    public func snapshots() -> AsyncStream<SyncSnapshot> {
        let (stream, continuation) = AsyncStream<SyncSnapshot>.makeStream(bufferingPolicy: .bufferingNewest(1))
        continuation.yield(currentSnapshot())
        guard !finished else {
            continuation.finish()
            return stream
        }
        let id = nextObserverID
        nextObserverID += 1
        snapshotObservers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            Task { await self.removeSnapshotObserver(id) }
        }
        return stream
    }

    private func removeSnapshotObserver(_ id: Int) {
        snapshotObservers.removeValue(forKey: id)
    }

    /// How many `snapshots()` streams are being observed (tests check that ended iterations unsubscribe).
    var snapshotObserverCount: Int { snapshotObservers.count }

    // MARK: - Control

    /// Waits until the current state is saved (with a `SyncPersistence`; at once without): call it before the
    /// app may be terminated. A failed save is reported as `persistenceFailed`.
    public func flush() async {
        guard persistence != nil else { return }
        while saving || unsaved {
            if saving {
                await withCheckedContinuation { saveWaiters.append($0) }
            } else {
                await save()
            }
        }
    }

    /// Starts connecting (and reconnecting until stopped or refused). Calling it again does nothing.
    ///
    /// A connection that cannot succeed by retrying — a malformed URL or unsupported scheme, a certificate
    /// the client does not accept, a TLS configuration that cannot be loaded — ends the session at the first
    /// attempt: the state becomes `.closed(.transportFailed(error))`.
    public func start() {
        guard runTask == nil, !stopping else { return }
        try? lifecycle.connect()
        publishState()
        runTask = Task { await self.run() }
    }

    /// Closes the connection cleanly (1000, so the others see a `leave` at once), stops
    /// reconnecting and finishes `states` and `events`. Pending patches stay unsent.
    public func stop() async {
        if !stopping {
            stopping = true
            try? lifecycle.close()
            publishState()
            backoffTask?.cancel()
            cancelTimer()
            if let socket { await socket.close(code: CloseCode.normal.rawValue, reason: "") }
            // A token provider or connect attempt in progress ends early if it honours cancellation.
            runTask?.cancel()
            resumeWaiter?.resume()
            resumeWaiter = nil
        }
        await runTask?.value
        await flush()
        await persistence?.close()
        finish()
    }

    /// Puts the session aside, as an app does when it goes to the background: the connection closes
    /// cleanly with 1000 (the others see this participant leave at once) and no reconnect is tried until
    /// `resume()`. The outbox, the confirmed state, the client id and the seqs are kept, and `apply` still
    /// works: changes queue and go out after `resume()`. The state is `.suspended`. Does nothing before
    /// `start()`, after `stop()`, or when already suspended.
    public func suspend() async {
        guard runTask != nil, !finished, !stopping, !suspendRequested else { return }
        suspendRequested = true
        backoffTask?.cancel()
        if let socket { await socket.close(code: CloseCode.normal.rawValue, reason: "") }
        await flush()
    }

    /// Takes a suspended session up again (the app is in the foreground): it connects at once, the backoff
    /// started over, resumes from its confirmed rev and sends what queued meanwhile. Does nothing unless
    /// suspended.
    public func resume() {
        guard suspendRequested, !stopping else { return }
        suspendRequested = false
        retryAtOnce = true
        resumeWaiter?.resume()
        resumeWaiter = nil
    }

    /// Reconnects now, for a network path change (NWPathMonitor reported a new interface): a session waiting
    /// to retry tries at once with the backoff started over; a live connection, which may be bound to the
    /// interface that went away, is dropped and replaced at once (resume keeps every change). Does nothing
    /// while connecting, suspended or stopped.
    public func reconnectNow() {
        guard runTask != nil, !finished, !stopping, !suspendRequested else { return }
        lifecycle.resetBackoff()
        if let backoffTask {
            retryAtOnce = true
            backoffTask.cancel()
        } else if lifecycle.state == .connected || lifecycle.state == .handshaking, let socket {
            retryAtOnce = true
            socket.abort()
        }
    }

    /// Applies a local change: visible at once (`stateChanged`), queued, and sent as soon as the
    /// connection and flow control allow. Works while disconnected too; the patch goes out after
    /// the next `welcome`.
    /// - Throws: `SyncSessionError.change` when the change does not apply to the visible state or
    ///   the role may not patch; `.closed` after the session ended.
    public func apply(_ ops: [PatchOp]) throws(SyncSessionError) {
        guard !finished, !stopping else { throw .closed }
        do {
            try engine.localChange(ops)
        } catch {
            throw .change(error)
        }
        publishSnapshotIfChanged()
        noteEngineChanged()
        sendOutgoing()
    }

    /// Declares `path` high-rate: changes made only at or below it (a scroll offset) are sent spaced by the
    /// link's round trip (`SyncEngine.highRateSpacing`), the newest value winning, wherever the app's state keeps them. `/contentOffset` is
    /// one by default (`SyncEngineConfiguration.highRatePaths`).
    public func declareHighRate(_ path: JSONPointer) {
        engine.declareHighRate(path)
    }

    /// Sets this participant's presence data (an object: name, avatar, cursor…). Sent at once when
    /// connected; otherwise it goes out in the next `hello`, and every reconnect's `hello` carries the
    /// latest value, so it is never sent before the session is established and never lost by a reconnect.
    public func updatePresence(_ data: JSONValue) {
        presence = data
        guard engine.isConnected else { return }
        send(.presence(data: data))
    }

    /// Broadcasts an ephemeral event to the others. Returns `false` (and drops it) when not connected:
    /// signals are never queued.
    @discardableResult
    public func signal(event: String, data: JSONValue) -> Bool {
        guard engine.isConnected else { return false }
        send(.signal(event: event, data: data))
        return true
    }

    /// Waits until every pending patch is acknowledged or rejected, the session ends, or `timeout`
    /// passes. Returns `true` when nothing is pending.
    public func drain(timeout: Duration) async -> Bool {
        await wait(timeout: timeout) { $0.engine.pending.isEmpty }
        return engine.pending.isEmpty
    }

    /// Waits until the session is connected (a `welcome` arrived), the session ends, or `timeout`
    /// passes. Returns `true` when connected.
    public func waitUntilConnected(timeout: Duration) async -> Bool {
        await wait(timeout: timeout) { $0.lifecycle.state == .connected }
        return lifecycle.state == .connected
    }

    /// Suspends until `condition` holds, the session finished, or `timeout` passed; re-checked
    /// whenever the engine or the lifecycle changes.
    private func wait(timeout: Duration, until condition: (isolated SyncSession) -> Bool) async {
        let deadline = ContinuousClock.now + timeout
        while !condition(self), !finished, ContinuousClock.now < deadline {
            let id = nextWaiterID
            nextWaiterID += 1
            let alarm = Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                self.wakeWaiter(id)
            }
            await withCheckedContinuation { drainWaiters[id] = $0 }
            alarm.cancel()
        }
    }

    /// Drops the current TCP connection without a close frame, as a lost network does (tests and
    /// demos). The session reconnects per its policy.
    public func simulateNetworkLoss() {
        socket?.abort()
    }

    // MARK: - Connection loop

    private func run() async {
        while !stopping {
            let outcome = await connectOnce()
            if stopping { break }
            endConnection()
            if suspendRequested {
                await waitWhileSuspended()
                continue
            }
            let lost: ConnectionState?
            switch outcome {
            case .ended(let code): lost = decideAfterLoss(code: code)
            case .failed(let error) where error.isPermanent: lost = try? lifecycle.failedForGood(error)
            case .failed: lost = decideAfterLoss(code: nil)
            }
            guard let lost else { break }
            publishState()
            guard case .reconnecting(_, let delay) = lost else { break }
            if !retryAtOnce {
                let sleeper = Task { _ = try? await Task.sleep(for: delay) }
                backoffTask = sleeper
                await sleeper.value
                backoffTask = nil
            }
            retryAtOnce = false
            if stopping { break }
            if suspendRequested {
                await waitWhileSuspended()
                continue
            }
            try? lifecycle.retry()
            publishState()
        }
        endConnection()
        finish()
    }

    /// Sits in `suspended` until `resume()` (then the lifecycle is connecting again) or `stop()`.
    private func waitWhileSuspended() async {
        try? lifecycle.suspend()
        publishState()
        if suspendRequested, !stopping {
            await withCheckedContinuation { resumeWaiter = $0 }
        }
        retryAtOnce = false
        guard !stopping else { return }
        try? lifecycle.resume()
        publishState()
    }

    /// Asks the lifecycle what follows a lost connection; `nil` when it cannot be lost now.
    private func decideAfterLoss(code: UInt16?) -> ConnectionState? {
        try? lifecycle.connectionLost(code: code.map { CloseCode(rawValue: $0) }, now: clock(), using: &random)
    }

    /// How one connection attempt ended.
    private enum AttemptOutcome {
        /// The connection ended with this close code (`nil`: none), or the attempt failed before a socket
        /// existed for a reason retrying may fix.
        case ended(UInt16?)
        /// The transport could not connect.
        case failed(SyncTransportError)
    }

    /// One attempt: token, connect, `hello`, then every frame until the connection ends.
    private func connectOnce() async -> AttemptOutcome {
        let token: String
        do {
            token = try await tokenProvider()
        } catch {
            eventSink.yield(.attemptFailed(reason: "the token provider failed: \(error)"))
            return .ended(nil)
        }
        let client: any SyncTransportConnection
        do {
            client = try await transport.connect(SyncTransportRequest(
                url: url, subprotocols: [TandemProtocol.subprotocol], timeout: configuration.connectTimeout,
                maxMessageSize: configuration.maxMessageSize))
        } catch {
            eventSink.yield(.attemptFailed(reason: "could not connect to \(url): \(error)"))
            return .failed(error)
        }
        if stopping || suspendRequested {
            await client.close(code: CloseCode.normal.rawValue, reason: "")
            return .ended(nil)
        }
        generation += 1
        tokenExpiry = TokenRefreshSchedule.expiry(of: token)
        socket = client
        discardingFrames = false
        let (queue, sink) = AsyncStream<[UInt8]>.makeStream()
        outbox = sink
        Task {
            for await message in queue {
                do { try await client.send(text: message) } catch { break }
            }
        }
        sink.yield(ClientMessage.hello(Hello(token: token, client: clientID, resume: engine.resume, presence: presence)).encoded())
        try? lifecycle.transportOpened()
        publishState()
        helloSentAt = clock()
        scheduleTimer()
        var code: UInt16?
        for await event in client.events {
            switch event {
            case .text(let bytes): receive(bytes)
            case .binary:
                heartbeat?.frameReceived(now: clock())
                reportLinkQuality()
            case .closed(let closeCode, _): code = closeCode
            }
        }
        return .ended(code)
    }

    /// Forgets the connection: in-flight patches go back to the outbox (keeping their seqs).
    private func endConnection() {
        if engine.isConnected { gateCommands.yield(.close) }
        outbox?.finish()
        outbox = nil
        socket = nil
        helloSentAt = nil
        refreshAt = nil
        if let heartbeat { estimator = heartbeat.estimator }
        heartbeat = nil
        reportedMisses = 0
        cancelTimer()
        engine.connectionLost()
        // Held patches went back to the outbox with their seqs; the next connection resends them.
        held = []
    }

    private func finish() {
        guard !finished else { return }
        finished = true
        stateSink.finish()
        eventSink.finish()
        gateCommands.yield(.finish(SyncSessionError.closed))
        gateCommands.finish()
        let observers = snapshotObservers
        snapshotObservers = [:]
        for observer in observers.values { observer.finish() }
        wakeAllWaiters()
    }

    // MARK: - Receiving

    private func receive(_ bytes: [UInt8]) {
        guard !discardingFrames else { return }
        let now = clock()
        heartbeat?.frameReceived(now: now)
        reportLinkQuality()
        let message: ServerMessage
        do throws(MessageDecodingError) {
            message = try ServerMessage.decode(bytes)
        } catch {
            // A type from a newer protocol revision is skipped; anything else unreadable ends the connection.
            if case .unknownType = error { return }
            return abandonConnection(.unreadableMessage(type: SyncProtocolError.leadingType(of: bytes), bytes: bytes.count, reason: error))
        }
        switch message {
        case .welcome(let welcome):
            helloSentAt = nil
            heartbeat = HeartbeatMonitor(settings: welcome.heartbeat, estimator: estimator, maxMisses: configuration.heartbeatMisses, now: now)
            let changes = engine.receive(message, now: now)
            noteEngineChanged()
            try? lifecycle.welcomed(now: now)
            planTokenRefresh()
            gateCommands.yield(.open(welcome.you))
            publishState()
            report(changes, participants: welcome.participants)
            if let presence, welcome.participants.first(where: { $0.peer == welcome.you.peer })?.data != presence {
                // A presence update raced the handshake; the hello carried the older value.
                send(.presence(data: presence))
            }
        case .pong(let t):
            let before = heartbeat?.estimator
            heartbeat?.pongReceived(t: t, now: now)
            if let after = heartbeat?.estimator, after != before, let sample = after.latest {
                eventSink.yield(.roundTrip(seconds: sample))
            }
        case .join(let participant): eventSink.yield(.joined(participant))
        case .presence(let peer, let data): eventSink.yield(.presenceChanged(peer, data: data))
        case .leave(let peer): eventSink.yield(.left(peer))
        case .signal(let from, let event, let data): eventSink.yield(.signal(from: from, event: event, data: data))
        case .error(let code, let text): eventSink.yield(.serverError(code: code, message: text))
        case .patch, .ack, .reject:
            report(engine.receive(message, now: now), participants: [])
            noteEngineChanged()
        }
        sendOutgoing()
    }

    /// Reports `error` and closes the connection with 1007; the connection loop then reconnects per the
    /// policy. Nothing more of this connection is read: a half-read stream cannot be trusted.
    private func abandonConnection(_ error: SyncProtocolError) {
        guard let socket else { return }
        discardingFrames = true
        eventSink.yield(.protocolError(error))
        cancelTimer()
        Task { await socket.close(code: CloseCode.invalidUTF8.rawValue, reason: "unreadable message") }
    }

    /// Reports the heartbeat's misses as they start, grow and end.
    private func reportLinkQuality() {
        let misses = heartbeat.map { $0.isDegraded ? $0.misses : 0 } ?? 0
        guard misses != reportedMisses else { return }
        if misses == 0 {
            eventSink.yield(.linkRecovered)
        } else {
            eventSink.yield(.linkDegraded(missedPongs: misses))
        }
        reportedMisses = misses
    }

    private func report(_ changes: [EngineEvent], participants: [Participant]) {
        for change in changes {
            switch change {
            case .synchronized(let epoch, let rev, let snapshot):
                eventSink.yield(.synchronized(epoch: epoch, rev: rev, snapshot: snapshot, participants: participants))
            case .acknowledged(let seq, let rev): eventSink.yield(.acknowledged(seq: seq, rev: rev))
            case .rejected(let seq, let code, let message, let ops):
                eventSink.yield(.rejected(seq: seq, code: code, message: message, ops: ops))
            case .resyncNeeded(let reason): eventSink.yield(.resyncNeeded(reason: reason))
            case .visibleChanged, .remoteChange: break // covered by the snapshot below
            }
        }
        publishSnapshotIfChanged()
        wakeAllWaiters()
    }

    // MARK: - Sending and timers

    private func send(_ message: ClientMessage) {
        guard let outbox else { return }
        outbox.yield(message.encoded())
        engine.noteMessageSent(now: clock())
    }

    /// Sends what the outbox releases now, then re-arms the timer. With persistence, patches that just got
    /// their seq wait for a save that holds it: a crash after the send can then never rebind that seq.
    private func sendOutgoing() {
        if let outbox, engine.isConnected {
            let messages = engine.nextOutgoing(now: clock())
            let bindsNewSeq = messages.contains { if case .patch(let seq, _, _) = $0 { seq >= savedNextSeq } else { false } }
            if persistence == nil || (!bindsNewSeq && held.isEmpty) {
                for message in messages { outbox.yield(message.encoded()) }
            } else if !messages.isEmpty {
                held.append(contentsOf: messages)
                unsaved = true
                if !saving { Task { await self.save() } }
            }
        }
        scheduleTimer()
    }

    /// Arms one timer for the earliest of: the welcome deadline, the heartbeat's next decision and
    /// the outbox's next send time. An earlier deadline replaces a later timer.
    private func scheduleTimer() {
        guard socket != nil else { return cancelTimer() }
        let now = clock()
        var deadline = Int64.max
        if let helloSentAt { deadline = helloSentAt + configuration.welcomeTimeout }
        if let heartbeat {
            var beat = heartbeat.nextDeadline
            // While a ping is outstanding the monitor may report a past deadline that has nothing
            // to decide yet; check again a tenth of an interval later instead of spinning.
            if beat <= now { beat = now + max(1_000_000, heartbeat.interval / 10) }
            deadline = min(deadline, beat)
        }
        if let send = engine.nextSendTime(now: now) { deadline = min(deadline, send) }
        if let refreshAt { deadline = min(deadline, refreshAt) }
        guard deadline != .max else { return cancelTimer() }
        if let timer, timer.deadline <= deadline { return }
        timer?.task.cancel()
        let currentGeneration = generation
        let delay = max(0, deadline - now)
        timer = (deadline, Task {
            try? await Task.sleep(for: .nanoseconds(delay))
            guard !Task.isCancelled else { return }
            self.timerFired(generation: currentGeneration)
        })
    }

    private func cancelTimer() {
        timer?.task.cancel()
        timer = nil
    }

    private func timerFired(generation fired: Int) {
        guard fired == generation, let socket else { return }
        timer = nil
        let now = clock()
        if let helloSentAt, now - helloSentAt >= configuration.welcomeTimeout {
            socket.abort()
            return
        }
        if let refreshAt, now >= refreshAt {
            self.refreshAt = nil
            refreshToken()
        }
        if var monitor = heartbeat {
            let actions = monitor.tick(now: now)
            heartbeat = monitor
            reportLinkQuality()
            for action in actions {
                switch action {
                case .sendPing(let t): send(.ping(t: t))
                case .declareDead:
                    socket.abort()
                    return
                }
            }
        }
        sendOutgoing()
    }

    // MARK: - Token refresh

    /// Plans the next refresh from the expiry of the token in force.
    private func planTokenRefresh() {
        guard let tokenExpiry else { return }
        let delay = TokenRefreshSchedule.delay(until: tokenExpiry, now: TokenRefreshSchedule.wallClock())
        refreshAt = clock() + Int64(delay * 1_000_000_000)
    }

    /// Asks the token provider for a fresh token and sends it on this connection, if it is still open.
    private func refreshToken() {
        guard !refreshing else { return }
        refreshing = true
        let asked = generation
        Task {
            let token = try? await tokenProvider()
            self.tokenRefreshed(token, generation: asked)
        }
    }

    private func tokenRefreshed(_ token: String?, generation asked: Int) {
        refreshing = false
        guard asked == generation, socket != nil, helloSentAt == nil else { return }
        if let token, let expiry = TokenRefreshSchedule.expiry(of: token), expiry > tokenExpiry ?? .min {
            send(.refresh(token: token))
            tokenExpiry = expiry
        }
        // A provider that returned no newer token is asked again after a share of what is left.
        planTokenRefresh()
        scheduleTimer()
    }

    // MARK: - Persistence

    /// The engine's state changed: save it within `persistenceInterval`.
    private func noteEngineChanged() {
        guard persistence != nil else { return }
        unsaved = true
        scheduleSave()
    }

    /// Arms the save timer unless a save runs (it re-arms when it ends) or the timer is armed.
    private func scheduleSave() {
        guard !saving, saveTimer == nil else { return }
        let delay = configuration.persistenceInterval
        saveTimer = Task {
            try? await Task.sleep(for: delay)
            // A save that started meanwhile cancelled this timer: it wrote what the timer was for.
            guard !Task.isCancelled else { return }
            await self.save()
        }
    }

    /// Seqs each save reserves beyond the engine's next one: about a second of offsets at every frame.
    static let reservedSeqs: Int64 = 64

    /// Saves the current state, one save at a time, and sends the held patches it covered; saves again at
    /// once while patches wait for their seqs to be saved. Changes made meanwhile wait for the timer, so a
    /// burst of changes is written a few times, not once per change.
    private func save() async {
        guard let persistence, !saving else { return }
        saving = true
        saveTimer?.cancel()
        saveTimer = nil
        repeat {
            unsaved = false
            var state = engine.savedState
            // Seqs are reserved ahead in what is saved (a restored engine skips the unused ones, which the
            // server allows): a patch whose seq a save already covers goes out without waiting, so a stream
            // of offsets at every frame is written at the save cadence, not once per offset.
            state.nextSeq += Self.reservedSeqs
            let covered = held.count
            let connection = generation
            do {
                try await persistence.save(state)
                savedNextSeq = max(savedNextSeq, state.nextSeq)
            } catch {
                eventSink.yield(.persistenceFailed(error))
            }
            // Sent even when the save failed: the session goes on in memory rather than stall.
            if connection == generation, let outbox, covered > 0, covered <= held.count {
                for message in held.prefix(covered) { outbox.yield(message.encoded()) }
                held.removeFirst(covered)
            }
        } while unsaved && !held.isEmpty
        saving = false
        if unsaved { scheduleSave() }
        let waiters = saveWaiters
        saveWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    // MARK: - Publishing

    private func publishState() {
        let state = lifecycle.state
        guard state != lastState, !finished else { return }
        lastState = state
        stateSink.yield(state)
        eventSink.yield(.connectionChanged(state))
        wakeAllWaiters()
    }

    private func currentSnapshot() -> SyncSnapshot {
        SyncSnapshot(rev: engine.rev, pending: engine.pending.count, state: engine.visible.root)
    }

    private func publishSnapshotIfChanged() {
        let current = currentSnapshot()
        guard current != lastSnapshot else { return }
        lastSnapshot = current
        eventSink.yield(.stateChanged(current))
        for observer in snapshotObservers.values { observer.yield(current) }
    }

    private func wakeWaiter(_ id: Int) {
        drainWaiters.removeValue(forKey: id)?.resume()
    }

    private func wakeAllWaiters() {
        let waiters = drainWaiters
        drainWaiters = [:]
        for waiter in waiters.values { waiter.resume() }
    }
}

/// What the session tells its `established` gate, in order.
private enum GateCommand: Sendable {
    case open(SessionIdentity)
    case close
    case finish(SyncSessionError)
}

/// The injected random source behind a concrete type, so it can be passed `inout` where a
/// generic generator is expected.
private struct JitterSource: RandomNumberGenerator, Sendable {
    var base: any RandomNumberGenerator & Sendable

    mutating func next() -> UInt64 { base.next() }
}
