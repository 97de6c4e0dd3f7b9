import Observation
import TandemProtocol

/// One shared room as an observable model for SwiftUI (or any view layer): the typed `state` everyone
/// sees, the connection and save `status`, `me` and the `others` with their typed presence, and the
/// `lastError`. `update { $0.tabIndex = 2 }` changes the state at once and sends the minimal ops.
///
/// Built on a `SyncSession`, which keeps the guarantees (exactly-once, resume, persistence); the room
/// owns the session's `events` stream. Everything observable changes on the main actor. Remote changes
/// are applied at most once per `nextFrame` (a display frame by default): a burst of remote patches is
/// one observation, not one per patch. While a local change is on its way to the session, remote
/// snapshots (which cannot contain it yet) are held back, so the state never steps back.
///
/// Fields the room's document lacks read as `initialState`'s, and the first participant who may write
/// and finds fields missing fills them in (`fillsMissingFields`), so every kind of participant (the
/// browser page, a backend) reads the same values without knowing this app's defaults. The fill is one
/// patch conditional on the whole state the participant saw (`test` of the root, then an `add` per
/// missing field): it can never overwrite a change made meanwhile. When the server refuses it because
/// the state changed, the room looks again at the state it then has. Rooms whose state serializes to
/// more than `fillLimit` bytes are not filled (the condition carries the whole state).
@MainActor @Observable
public final class SharedRoom<State: Codable & Equatable & Sendable, Presence: Codable & Equatable & Sendable> {
    /// The room's state as this participant sees it: confirmed changes with its own pending ones on top.
    public private(set) var state: State
    /// The connection and whether every local change is confirmed.
    public private(set) var status = RoomStatus()
    /// This participant, once the session is established.
    public private(set) var me: RoomParticipant<Presence>?
    /// Everyone else in the room, in the order they joined.
    public private(set) var others: [RoomParticipant<Presence>] = []
    /// The last problem (a refused change, an incompatible state, a failing disk); the room goes on.
    public private(set) var lastError: RoomError?

    /// The session underneath.
    @ObservationIgnored public let session: SyncSession
    /// Signals from the others, in order. Single consumer; ends when the room stops.
    @ObservationIgnored public let signals: AsyncStream<RoomSignal>
    @ObservationIgnored private let signalSink: AsyncStream<RoomSignal>.Continuation
    @ObservationIgnored private let typed: SharedState<State>
    @ObservationIgnored private let commands: AsyncStream<Command>.Continuation
    @ObservationIgnored private let commandQueue: AsyncStream<Command>
    @ObservationIgnored private let nextFrame: @Sendable () async -> Void
    /// Local commands handed to the queue and not yet taken by the session.
    @ObservationIgnored private var unapplied = 0
    @ObservationIgnored private var sessionPending = 0
    @ObservationIgnored private var connection: ConnectionState = .idle
    @ObservationIgnored private var degraded = false
    @ObservationIgnored private var started = false
    @ObservationIgnored private var handedOverWaiters: [CheckedContinuation<Void, Never>] = []
    @ObservationIgnored private let fillsMissingFields: Bool
    /// The latest fills sent, to recognise their refusal among the others'.
    @ObservationIgnored private var fills: [[PatchOp]] = []
    /// Fills tried since the last welcome; a room that keeps changing under them is left to the others.
    @ObservationIgnored private var fillAttempts = 0
    /// This session's user and client id, from its last welcome.
    @ObservationIgnored private var myPeer: Peer?
    /// Who handles background, foreground and path changes.
    @ObservationIgnored private let lifecycleChoice: RoomLifecycle
    @ObservationIgnored private var lifecycle: SessionLifecycle?

    /// The largest serialized state a participant fills missing fields in.
    public static var fillLimit: Int { 8_192 }
    /// Fill attempts per connection.
    private static var maxFillAttempts: Int { 5 }

    /// What the room hands to the session, in the order the app asked.
    private enum Command: Sendable {
        case apply([PatchOp])
        case presence(JSONValue)
        case signal(String, JSONValue)
        case fillMissingFields
        case highRate(JSONPointer)
    }

    /// A room on `session` whose state reads as `State`, with `initialState` for the fields the room's
    /// document does not have. Nothing connects until `start()`.
    /// - Parameter nextFrame: waits for the next render frame (about 16 ms by default); remote changes are
    ///   applied at most once per frame. Tests pass a frame they control.
    /// - Parameter fillsMissingFields: whether this participant writes `initialState`'s values for fields
    ///   the room lacks (see the type's documentation); a participant that only reads may turn it off.
    /// - Parameter lifecycle: who suspends, resumes and reconnects the session as the app goes to the
    ///   background, comes back and changes network: the room itself by default (`.automatic`), or the app
    ///   (`.manual`).
    /// - Throws: `SharedStateError.encoding` when `State` does not encode to a JSON object.
    public init(session: SyncSession, initialState: State, presence: Presence.Type = Presence.self, fillsMissingFields: Bool = true,
                lifecycle: RoomLifecycle = .automatic(),
                nextFrame: @escaping @Sendable () async -> Void = { try? await Task.sleep(for: .milliseconds(16)) }) throws(SharedStateError) {
        self.session = session
        lifecycleChoice = lifecycle
        self.fillsMissingFields = fillsMissingFields
        state = initialState
        typed = try SharedState(defaultValue: initialState)
        self.nextFrame = nextFrame
        (signals, signalSink) = AsyncStream<RoomSignal>.makeStream()
        (commandQueue, commands) = AsyncStream<Command>.makeStream()
    }

    // MARK: - Life

    /// Shows the session's state (a restored one at once), then connects. Calling it again does nothing.
    public func start() async {
        guard !started else { return }
        started = true
        render(await session.snapshot)
        // Listening starts here, before the session can say anything: a task starts later than this line.
        let events = session.events
        Task { await self.runCommands() }
        Task { await self.runSnapshots() }
        Task { await self.runEvents(events) }
        await session.start()
        if let source = lifecycleChoice.source {
            let lifecycle = SessionLifecycle(session: session, environment: source.environment, settings: source.settings, clock: source.clock) { conditions in
                await self.show(conditions)
            }
            self.lifecycle = lifecycle
            lifecycle.start()
        }
    }

    private func show(_ conditions: NetworkConditions) {
        status.network = conditions
    }

    /// Leaves the room: the session closes cleanly and saves; `signals` ends.
    public func stop() async {
        lifecycle?.stop()
        await session.stop()
        commands.finish()
        signalSink.finish()
    }

    // MARK: - Changes

    /// Changes the state: `body` mutates a copy, the room shows it at once, and the minimal ops between
    /// the two go to the session (nothing when `body` changed nothing). A change that cannot be encoded is
    /// not applied and is reported in `lastError`; so is a change after `stop()` (`.changeRefused(.closed)`,
    /// the state left as it was), as one the session refuses after the server closed it is.
    public func update(_ body: (inout State) -> Void) {
        var new = state
        body(&new)
        guard new != state else { return }
        let ops: [PatchOp]
        do {
            ops = try typed.changes(from: state, to: new)
        } catch {
            lastError = .unencodableChange(error)
            return
        }
        guard enqueue(.apply(ops)) else {
            lastError = .changeRefused(.closed)
            return
        }
        state = new
    }

    /// Declares the offset at `keyPath` high-rate: changes to it alone are sent spaced by the link's round
    /// trip (every frame on a fast link, at most 33 ms apart), the newest value winning, whatever the state calls it — as `/contentOffset`
    /// is by default. `ScrollSync(room:offset:)` does this for the offset it shares. Returns false when the
    /// offset's place in the shared document could not be found (it does not encode as its own member).
    @discardableResult
    public func declareHighRate(_ keyPath: WritableKeyPath<State, ContentOffset>) -> Bool {
        var moved = state
        let current = moved[keyPath: keyPath]
        moved[keyPath: keyPath] = ContentOffset(x: current.x + 1, y: current.y + 1)
        // Where a change of this offset alone lands in the document: the deepest path all its ops share.
        guard let ops = try? typed.changes(from: state, to: moved), let first = ops.first else { return false }
        var tokens = first.path.tokens
        for op in ops.dropFirst() {
            let other = op.path.tokens
            tokens = Array(zip(tokens, other).prefix { $0 == $1 }.map(\.0))
        }
        guard !tokens.isEmpty else { return false }
        enqueue(.highRate(JSONPointer(tokens: tokens)))
        return true
    }

    /// Announces this participant's presence (cursor, name, what they look at) to the others.
    public func updatePresence(_ presence: Presence) {
        do {
            enqueue(.presence(try JSONValueEncoder().encode(presence)))
        } catch {
            lastError = .unencodableChange(.encoding(String(describing: error)))
        }
    }

    /// Sends an ephemeral event to the others (dropped when not connected: signals are never queued).
    public func signal(_ event: String, data: JSONValue = .emptyObject) {
        enqueue(.signal(event, data))
    }

    /// Waits until every change made so far is with the session, confirmed by the server and saved (with
    /// persistence): "all changes saved". Returns false when `timeout` passed first or the session ended
    /// with changes unconfirmed.
    public func settled(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while unapplied > 0, ContinuousClock.now < deadline {
            let alarm = Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                self.wakeHandedOverWaiters()
            }
            await withCheckedContinuation { handedOverWaiters.append($0) }
            alarm.cancel()
        }
        guard unapplied == 0 else { return false }
        let confirmed = await session.drain(timeout: max(.zero, deadline - ContinuousClock.now))
        await session.flush()
        // The status says so at once, without waiting for the next frame.
        render(await session.snapshot)
        return confirmed
    }

    /// Hands `command` to the session's side; false when the room was stopped and nothing takes it any more.
    @discardableResult
    private func enqueue(_ command: Command) -> Bool {
        unapplied += 1
        refreshPending()
        if case .terminated = commands.yield(command) {
            unapplied -= 1
            refreshPending()
            return false
        }
        return true
    }

    // MARK: - The session's side

    private func runCommands() async {
        for await command in commandQueue {
            switch command {
            case .apply(let ops):
                do throws(SyncSessionError) {
                    try await session.apply(ops)
                } catch {
                    lastError = .changeRefused(error)
                }
            case .presence(let data): await session.updatePresence(data)
            case .signal(let event, let data): await session.signal(event: event, data: data)
            case .fillMissingFields: await fillMissingFields()
            case .highRate(let path): await session.declareHighRate(path)
            }
            unapplied -= 1
            if unapplied == 0 {
                // Held-back snapshots, and the rollback of a refused change: the session's state now has everything.
                render(await session.snapshot)
                wakeHandedOverWaiters()
            }
        }
    }

    /// Sends the fill for what the session's state lacks now, if anything.
    private func fillMissingFields() async {
        // A fill still on its way is part of the session's state: those fields are not missing.
        guard fillAttempts < Self.maxFillAttempts else { return }
        let current = await session.snapshot.state
        let missing = typed.missingFields(in: current)
        guard !missing.isEmpty, current.serializedBytes().count <= Self.fillLimit else { return }
        let ops = [PatchOp.test(.root, current)] + missing.map { PatchOp.add($0.path, $0.value) }
        fillAttempts += 1
        do throws(SyncSessionError) {
            try await session.apply(ops)
            fills = fills.suffix(Self.maxFillAttempts - 1) + [ops]
        } catch {
            // Closed or read-only: nothing to fill from here.
        }
    }

    private func wakeHandedOverWaiters() {
        let waiters = handedOverWaiters
        handedOverWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    private func runSnapshots() async {
        for await snapshot in await session.snapshots() {
            render(snapshot)
            await nextFrame()
        }
    }

    private func runEvents(_ events: AsyncStream<SyncSessionEvent>) async {
        for await event in events {
            switch event {
            case .connectionChanged(let state):
                connection = state
                refreshConnection()
            case .synchronized(_, _, _, let participants):
                // This session is the participant with its user and client id: another user may name the same client id.
                let you = await session.identity?.peer
                myPeer = you
                me = participants.first { $0.peer == you }.map(Self.participant)
                others = participants.filter { $0.peer != you }.map(Self.participant)
                fillAttempts = 0
                if fillsMissingFields, me?.role.canPatch ?? false { enqueue(.fillMissingFields) }
            case .joined(let participant):
                guard participant.peer != myPeer else { continue }
                others.removeAll { $0.peer == participant.peer }
                others.append(Self.participant(participant))
            case .left(let peer):
                others.removeAll { $0.peer == peer }
            case .presenceChanged(let peer, let data):
                if let index = others.firstIndex(where: { $0.peer == peer }) {
                    others[index].presence = Self.presence(data)
                } else if me?.peer == peer {
                    me?.presence = Self.presence(data)
                }
            case .signal(let from, let name, let data):
                signalSink.yield(RoomSignal(from: from, event: name, data: data))
            case .linkDegraded:
                degraded = true
                refreshConnection()
            case .linkRecovered:
                degraded = false
                refreshConnection()
            case .rejected(_, let code, let message, let ops):
                // A fill is known by its `test`, which coalescing never drops (a later change may drop its adds).
                if let index = fills.firstIndex(where: { $0.first == ops.first }) {
                    // The state changed under the fill: look again at the one the session has now.
                    fills.remove(at: index)
                    enqueue(.fillMissingFields)
                } else {
                    lastError = .rejected(code: code.wireValue, message: message)
                }
            case .persistenceFailed(let error):
                lastError = .persistence(error)
            case .protocolError(let error):
                lastError = .protocolError(error)
            case .attemptFailed, .stateChanged, .acknowledged, .roundTrip, .serverError, .resyncNeeded:
                break
            }
        }
        signalSink.finish()
    }

    /// Shows `snapshot` unless local changes are on their way to the session (the command loop renders the
    /// session's state once they are all with it).
    private func render(_ snapshot: SyncSnapshot) {
        sessionPending = snapshot.pending
        refreshPending()
        guard unapplied == 0 else { return }
        do throws(SharedStateError) {
            let value = try typed.value(of: snapshot.state)
            if value != state { state = value }
            if case .incompatibleState = lastError { lastError = nil }
        } catch {
            lastError = .incompatibleState(error)
        }
    }

    private func refreshPending() {
        let pending = sessionPending + unapplied
        if status.pendingChanges != pending { status.pendingChanges = pending }
    }

    private func refreshConnection() {
        let shown: RoomStatus.Connection = switch connection {
        case .idle, .connecting, .handshaking: .connecting
        case .connected: degraded ? .degraded : .connected
        case .reconnecting(let attempt, _): .reconnecting(attempt: attempt)
        case .suspended: .offline
        case .closed(let reason): .closed(reason)
        }
        if status.connection != shown { status.connection = shown }
    }

    private static func participant(_ participant: Participant) -> RoomParticipant<Presence> {
        RoomParticipant(peer: participant.peer, role: participant.role, name: participant.name, presence: presence(participant.data))
    }

    private static func presence(_ data: JSONValue) -> Presence? {
        try? JSONValueDecoder().decode(Presence.self, from: data)
    }
}
