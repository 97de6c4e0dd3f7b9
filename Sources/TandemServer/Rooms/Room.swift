import TandemSynchronization
import TandemProtocol

/// One live room: who is in it (`RoomMembers`), the writes waiting for an outcome (`PendingWrites`),
/// and the ordered release of what its sequencer decides.
///
/// Thread-safety: every method may be called from any thread; state is behind one mutex.
/// Ordering: a patch is shown when its sequencer releases it (after the commit alone, after this node
/// folded it from the log in a cluster), in rev order; welcomes, rejects and duplicate acks wait in a
/// `ReleaseGate` for every patch applied before them, so every connection sees them in rev order and
/// nothing is shown to anyone before it is durable. Presence and signals are ephemeral and go out at once.
package final class Room: Sendable {
    /// How a join ended up.
    enum JoinOutcome: Sendable, Equatable {
        /// Accepted; the welcome follows once storage has caught up.
        case accepted
        /// Refused and closed (room full, the user removed, a newer connection of the same client).
        case refused
        /// This room instance was unloaded meanwhile; look the room up again.
        case retired
    }

    /// What waits in the gate: a message for one connection, a welcome, or an answer of the HTTP API.
    private enum Held {
        case message(OutboundMessage, peer: Peer, connection: ConnectionID)
        case welcome(Welcome, peer: Peer, connection: ConnectionID)
        /// Called with true once released, with false when the room closes first.
        case answer(@Sendable (_ released: Bool) -> Void)
    }

    private struct State {
        var core: RoomCore
        var gate: ReleaseGate<Held>
        var members = RoomMembers()
        var writes = PendingWrites()
        var retired = false
        /// Set when storage failed: the room refuses everything until it is reloaded.
        var broken = false

        var serving: Bool { !retired && !broken }
    }

    /// The client id under which the room sequences each subject's writes of the HTTP API (they have no
    /// connection, and their patch events name it); a socket may not claim it.
    package static let httpClient = "http"

    /// The room's name.
    package let name: String
    private let state: Locked<State>
    private let sequencer: any RoomSequencer
    private let scheduler: any TimerScheduler
    private let settings: RoomSettings
    private let metrics: ServerMetrics
    private let logger: Logger
    /// Called (outside the lock) when the last participant has gone, or storage failed.
    private let onIdle: @Sendable (Room) -> Void
    /// Whether a host removed this user from the room (asked under the room's lock when they join).
    private let isDenied: @Sendable (_ room: String, _ user: String) -> Bool
    /// Told of sessions, participants and changes under the room's lock (so in the order they happen); nil without webhooks.
    private let webhooks: (any WebhookReporter)?

    init(core: RoomCore, sequencer: any RoomSequencer, scheduler: any TimerScheduler, settings: RoomSettings,
         metrics: ServerMetrics, logger: Logger, isDenied: @escaping @Sendable (_ room: String, _ user: String) -> Bool = { _, _ in false },
         webhooks: (any WebhookReporter)? = nil, onIdle: @escaping @Sendable (Room) -> Void) {
        self.isDenied = isDenied
        self.webhooks = webhooks
        name = core.name
        state = Locked(State(core: core, gate: ReleaseGate(releasedRev: core.rev)))
        self.sequencer = sequencer
        self.scheduler = scheduler
        self.settings = settings
        self.metrics = metrics
        self.logger = logger
        self.onIdle = onIdle
    }

    /// The room's epoch and rev (for tests and diagnostics).
    var position: (epoch: String, rev: Int64) { state.withLock { ($0.core.epoch, $0.core.rev) } }

    /// The current document (for tests and diagnostics).
    var document: Document { state.withLock { $0.core.document } }

    /// Number of participants, including those in their grace period.
    var participantCount: Int { state.withLock { $0.members.count } }

    /// The epoch this instance serves.
    package var epoch: String { state.withLock { $0.core.epoch } }

    // MARK: - Connections

    /// Admits a connection. A newer connection of the same user with the same client id replaces the
    /// older one (closed with 4009); another user's client of the same id is another participant; one
    /// arriving within the grace period of a dropped connection takes its place without leave/join
    /// events. Newer means accepted later (higher `ConnectionID`), not joined later: an old connection
    /// whose join was delayed (a slow room load on a busy loop) is the one closed, so a client that gave
    /// up on it and reconnected keeps its new connection.
    func join(_ request: JoinRequest, sink: any SessionSink, connection: ConnectionID) -> JoinOutcome {
        let peer = request.identity.peer
        var replaced: (any SessionSink)?
        let outcome: JoinOutcome = state.withLock { state in
            guard state.serving else { return .retired }
            if isDenied(name, request.identity.user) {
                sink.close(.forbidden, error: OutboundMessage(.error(code: .forbidden, message: "a host removed you from room '\(name)'; you cannot rejoin with this token")))
                return .refused
            }
            let existing = state.members[peer]
            if let existing, existing.connection.rawValue > connection.rawValue, !existing.phase.isDropped {
                sink.close(.replaced, error: OutboundMessage(.error(code: .replaced, message: "a newer connection with the same client id is connected")))
                return .refused
            }
            if existing == nil, state.members.connections(of: request.identity.user) >= settings.maxConnectionsPerUser {
                sink.close(.roomFull, error: OutboundMessage(.error(code: .roomFull, message:
                    "user '\(request.identity.user)' already has \(settings.maxConnectionsPerUser) connections in room '\(name)'; close one first")))
                return .refused
            }
            if existing == nil && state.members.count >= settings.maxParticipants {
                sink.close(.roomFull, error: OutboundMessage(.error(code: .roomFull, message: "room '\(name)' is full (\(settings.maxParticipants) participants)")))
                return .refused
            }
            // A participant the others know from another node (it moved here) is not announced again.
            var announced = state.members.takeFromElsewhere(peer)
            if let existing {
                switch existing.phase {
                case .dropped(let timer): timer.cancel()
                case .pending, .live: replaced = existing.sink
                }
                announced = existing.announced || announced
                if existing.announced && existing.data != request.presence {
                    state.members.broadcast(OutboundMessage(.presence(peer, data: request.presence)), except: peer)
                }
            }
            state.members[peer] = RoomMembers.Member(identity: request.identity, name: request.name, data: request.presence, sink: sink,
                                                     connection: connection, phase: .pending, announced: announced)
            scheduleWelcome(for: request, connection: connection, in: &state)
            return .accepted
        }
        replaced?.close(.replaced, error: OutboundMessage(.error(code: .replaced, message: "a newer connection with the same client id took over")))
        return outcome
    }

    /// Submits a patch from `connection` to the room's sequencer. Its ack (or reject) and the others'
    /// patch events are released in rev order, once the patch is durable. `base`: the rev the ops
    /// were made on, when the client sent one.
    func submit(seq: Int64, ops: [PatchOp], base: Int64?, from connection: ConnectionID, peer: Peer) {
        let arrival = settings.now()
        state.withLock { state in
            guard !state.broken, let member = state.members.member(peer, on: connection) else { return }
            switch sequencer.submit(SubmittedPatch(seq: seq, ops: ops, base: base, author: member.identity), core: &state.core, outcomes: self) {
            case .awaiting:
                state.writes.wait(author: peer, seq: seq, PendingWrites.Awaiting(connection: connection, arrival: arrival, sent: base == nil ? nil : ops))
            case .answer(let message):
                answer(message, to: peer, connection: connection, in: &state)
            case .conflict:
                break // only the HTTP API's writes name an `ifRev`
            }
        }
    }

    /// Replaces a participant's presence data and tells the others.
    func updatePresence(_ data: JSONValue, from connection: ConnectionID, peer: Peer) {
        state.withLock { state in
            guard var member = state.members.member(peer, on: connection) else { return }
            member.data = data
            state.members[peer] = member
            if member.announced {
                state.members.broadcast(OutboundMessage(.presence(peer, data: data)), except: peer)
            }
        }
    }

    /// Relays an ephemeral event to the other live participants (through the sequencer to other
    /// nodes' too); nothing is stored.
    func signal(event: String, data: JSONValue, from connection: ConnectionID, peer: Peer) {
        state.withLock { state in
            guard let member = state.members.member(peer, on: connection), member.isLive else { return }
            let message = ServerMessage.signal(from: peer, event: event, data: data)
            state.members.broadcast(OutboundMessage(message), except: peer)
            sequencer.publish(message)
        }
    }

    /// A connection ended. A clean close (1000) leaves at once; a dropped connection is kept for
    /// the grace period so that a quick reconnect causes no leave/join.
    func disconnect(_ connection: ConnectionID, peer: Peer, clean: Bool) {
        let becameIdle: Bool = state.withLock { state in
            guard let member = state.members.member(peer, on: connection) else { return false }
            if clean || !member.announced {
                remove(peer, in: &state)
                return state.members.isEmpty
            }
            let timer = scheduler.schedule(after: settings.presenceGrace) { [weak self] in
                self?.expire(peer, connection: connection)
            }
            state.members[peer]?.phase = .dropped(timer)
            return false
        }
        if becameIdle { onIdle(self) }
    }

    // MARK: - The HTTP API

    /// A write of the HTTP API by `user` with `role` (a backend, or a participant's token): sequenced like a
    /// participant's patch of that user, under the client id `httpClient` with its next seq, and seen by
    /// every participant as a `patch` event. With `ifRev`, applied only while the room is at that rev.
    /// `completion` runs once, when the write is durable or refused (on any thread; keep it short).
    package func submitHTTP(_ ops: [PatchOp], user: String, role: Role, ifRev: Int64?,
                            completion: @escaping @Sendable (HTTPWriteOutcome) -> Void) {
        let outcome: HTTPWriteOutcome? = state.withLock { state in
            guard state.serving else { return .retired }
            let author = SessionIdentity(user: user, client: Self.httpClient, role: role)
            let seq = state.writes.httpSeq(after: state.core.lastSeq(of: author.peer))
            let before = state.core.rev
            let patch = SubmittedPatch(seq: seq, ops: ops, base: nil, author: author, ifRev: ifRev, overHTTP: true)
            switch sequencer.submit(patch, core: &state.core, outcomes: self) {
            case .awaiting where state.core.rev > before:
                // A sequencer that gives revs itself applied it at once: answered when that rev is released.
                state.writes.holdHTTP(at: state.core.rev, PendingWrites.HTTPWrite(answer: completion, durable: false))
                return nil
            case .awaiting:
                state.writes.holdHTTP(seq: seq, completion)
                return nil
            case .conflict(let rev):
                return .conflict(rev: rev)
            case .answer(.reject(_, let code, let message)):
                metrics.rejects.increment(code.wireValue)
                return .refused(code, message: message)
            case .answer(let message):
                return .failed("the room answered \(message.type)")
            }
        }
        if let outcome { completion(outcome) }
    }

    /// The room as the HTTP API shows it, handed to `body` once every patch it holds is durable (at once
    /// when they are). nil when this instance stopped serving, also before they became durable (look
    /// the room up again).
    package func snapshot(_ body: @escaping @Sendable (Snapshot?) -> Void) {
        let ready: Snapshot?? = state.withLock { state in
            guard state.serving else { return .some(nil) }
            let snapshot = Snapshot(epoch: state.core.epoch, rev: state.core.rev, state: state.core.document.root,
                                    participants: state.members.participants, oldestStoredRev: state.core.oldestStoredRev)
            guard state.gate.admit(.answer({ released in body(released ? snapshot : nil) }), decidedAt: state.core.rev) != nil else { return nil }
            return .some(snapshot)
        }
        if let ready { body(ready) }
    }

    // MARK: - Life of the instance

    /// Whether this instance accepts no more joins (unloaded, shut down or broken).
    var isRetired: Bool { state.withLock { !$0.serving } }

    /// Marks the room retired if nobody is in it; a retired room accepts no joins (the caller
    /// then loads a fresh instance). Returns whether it was retired.
    func retireIfIdle() -> Bool {
        state.withLock { state in
            guard state.members.isEmpty else { return false }
            state.retired = true
            return true
        }
    }

    /// Removes every connection of `user` (live, joining or in its grace period): the others see them leave,
    /// and each is closed with 4003 and `message`. Returns how many connections were closed.
    @discardableResult
    func removeUser(_ user: String, reason message: String) -> Int {
        let (removed, becameIdle): ([RoomMembers.Member], Bool) = state.withLock { state in
            let members = state.members.members(of: user)
            for member in members { remove(member.identity.peer, in: &state) }
            return (members, !members.isEmpty && state.members.isEmpty)
        }
        for member in removed { member.sink.close(.forbidden, error: OutboundMessage(.error(code: .forbidden, message: message))) }
        if becameIdle { onIdle(self) }
        return removed.count
    }

    /// Closes every connection (e.g. server shutdown) without waiting for grace periods.
    func closeAll(_ code: CloseCode, error: ErrorCode, message: String) {
        let sinks: [any SessionSink] = state.withLock { state in
            reportEveryoneLeaving(in: state)
            let members = state.members.removeAll()
            for member in members { if case .dropped(let timer) = member.phase { timer.cancel() } }
            for case .answer(let answer) in state.gate.removeAll() { answer(false) }
            state.writes.closeAll(message: message)
            state.retired = true
            return members.map(\.sink)
        }
        for sink in sinks { sink.close(code, error: OutboundMessage(.error(code: error, message: message))) }
    }

    /// The server stops: every participant known here is reported as left and the session as ended
    /// (a restart ends a session; whoever reconnects starts a new one). Connections are left to the server.
    func reportShutdown() {
        state.withLock { state in
            reportEveryoneLeaving(in: state)
            state.members.forgetAnnouncements()
        }
    }

    /// Stops serving this instance: everyone is closed with `message` (they resume against a fresh load).
    package func failAll(message: String = "the server could not store a change; reconnect to resume") {
        stopServing(.internalError, error: .internal, message: message)
    }

    /// Stops serving this instance with `code` and an `error` message before it (a deleted room: 4004),
    /// and lets the registry drop it.
    package func stopServing(_ code: CloseCode, error: ErrorCode, message: String) {
        state.withLock { $0.broken = true }
        closeAll(code, error: error, message: message)
        onIdle(self)
    }

    // MARK: - Release

    /// The two frames a released patch becomes, encoded before the room's lock is taken (the lock is held
    /// only to hand them out).
    private struct ReleasedFrames {
        let ack: OutboundMessage
        let patch: OutboundMessage

        init(_ event: PatchEvent) {
            ack = OutboundMessage(.ack(seq: event.seq, rev: event.rev, duplicate: false))
            patch = OutboundMessage(.patch(event))
        }
    }

    /// Sends a released patch (ack to its author, event to everyone else), then what waited for it.
    /// Returns when the author's patch arrived, if its author is connected here.
    private func send(_ event: PatchEvent, _ frames: ReleasedFrames, in state: inout State) -> ContinuousClock.Instant? {
        let authorPeer = event.author
        let author = state.writes.take(author: authorPeer, seq: event.seq)
        let rebased = author?.sent.map { $0 != event.ops } ?? false
        let ack = rebased ? OutboundMessage(.ack(seq: event.seq, rev: event.rev, duplicate: false, ops: event.ops)) : frames.ack
        for member in state.members.here.values where member.isLive {
            member.sink.send(member.connection == author?.connection && member.identity.peer == authorPeer ? ack : frames.patch)
        }
        webhooks?.changed(room: name, rev: event.rev, ops: event.ops,
                          authoredHere: author != nil || state.members[authorPeer] != nil || state.writes.hasHTTPWrite(at: event.rev))
        for held in state.gate.release(through: event.rev) {
            switch held {
            case .message(let message, let peer, let connection):
                state.members.member(peer, on: connection)?.sink.send(message)
            case .welcome(let welcome, let peer, let connection):
                self.welcome(welcome, peer: peer, connection: connection, in: &state)
            case .answer(let answer):
                answer(true)
            }
        }
        // Only an HTTP write waits under its rev.
        if let write = state.writes.takeHTTP(at: event.rev) { write.answer(.applied(rev: event.rev)) }
        return author?.arrival
    }

    /// Sends an answer to one connection after every patch applied before it.
    private func answer(_ message: ServerMessage, to peer: Peer, connection: ConnectionID, in state: inout State) {
        if case .reject(_, let code, _) = message { metrics.rejects.increment(code.wireValue) }
        let outbound = OutboundMessage(message)
        guard state.gate.admit(.message(outbound, peer: peer, connection: connection), decidedAt: state.core.rev) != nil else { return }
        state.members.member(peer, on: connection)?.sink.send(outbound)
    }

    private func observeCommitLatency(since arrival: ContinuousClock.Instant) {
        metrics.commitLatency.observe((settings.now() - arrival).totalSeconds)
    }

    // MARK: - Welcomes

    private func scheduleWelcome(for request: JoinRequest, connection: ConnectionID, in state: inout State) {
        let core = state.core
        let peer = request.identity.peer
        var welcome = Welcome(epoch: core.epoch, rev: core.rev, sync: .replay([]), lastSeq: core.lastSeq(of: peer),
                              forgotten: core.mayHaveForgotten(peer), you: request.identity,
                              participants: [], heartbeat: settings.heartbeat, limits: settings.limits)
        switch core.plan(resume: request.resume) {
        case .snapshot:
            metrics.snapshots.increment()
            welcome.sync = .state(core.document.root)
            hold(welcome, peer: peer, connection: connection, in: &state)
        case .replay(let events):
            if request.resume != nil { metrics.resumes.increment() }
            welcome.sync = .replay(events)
            hold(welcome, peer: peer, connection: connection, in: &state)
        case .replayFromStorage(let after):
            metrics.resumes.increment()
            let base = welcome
            sequencer.history(after: after, through: core.rev) { [self] result in
                switch result {
                case .success(let events):
                    var prepared = base
                    prepared.sync = .replay(events)
                    self.state.withLock { [prepared] state in hold(prepared, peer: peer, connection: connection, in: &state) }
                case .failure(let error):
                    logger.error("room.replay_failed", LogField("room", name), LogField("error", error.description))
                    fail(peer: peer, connection: connection)
                }
            }
        }
    }

    /// Gives a prepared welcome to the gate at the room's current rev. One prepared at an older rev is
    /// brought up to it first (the member was not live meanwhile): the patches applied since join its
    /// replay, or it becomes a snapshot when memory no longer holds them.
    private func hold(_ prepared: Welcome, peer: Peer, connection: ConnectionID, in state: inout State) {
        guard state.members.member(peer, on: connection) != nil else { return }
        var welcome = prepared
        let core = state.core
        if welcome.rev < core.rev, case .replay(let events) = welcome.sync {
            if let later = core.recent.events(after: welcome.rev, through: core.rev) {
                welcome.sync = .replay(events + later)
            } else {
                welcome.sync = .state(core.document.root)
            }
            welcome.rev = core.rev
            welcome.lastSeq = core.lastSeq(of: peer)
        }
        guard let due = state.gate.admit(.welcome(welcome, peer: peer, connection: connection), decidedAt: core.rev),
              case .welcome(let now, _, _) = due else { return }
        self.welcome(now, peer: peer, connection: connection, in: &state)
    }

    /// Makes the member live and sends its welcome, then tells the others it joined.
    private func welcome(_ base: Welcome, peer: Peer, connection: ConnectionID, in state: inout State) {
        guard var member = state.members.member(peer, on: connection) else { return }
        member.phase = .live
        let wasAnnounced = member.announced
        member.announced = true
        state.members[peer] = member
        var welcome = base
        welcome.participants = state.members.participants
        member.sink.send(OutboundMessage(.welcome(welcome)))
        if !wasAnnounced {
            state.members.broadcast(OutboundMessage(.join(member.participant)), except: peer)
            webhooks?.joined(room: name, member.participant, first: state.members.isAlone(peer))
        }
    }

    // MARK: - Leaving

    private func fail(peer: Peer, connection: ConnectionID,
                      message: String = "the server could not read the room's history; reconnect to resume") {
        let sink: (any SessionSink)? = state.withLock { state in
            guard let member = state.members.member(peer, on: connection) else { return nil }
            remove(peer, in: &state)
            return member.sink
        }
        sink?.close(.internalError, error: OutboundMessage(.error(code: .internal, message: message)))
    }

    private func expire(_ peer: Peer, connection: ConnectionID) {
        let becameIdle: Bool = state.withLock { state in
            guard let member = state.members.member(peer, on: connection), member.phase.isDropped else { return false }
            remove(peer, in: &state)
            return state.members.isEmpty
        }
        if becameIdle { onIdle(self) }
    }

    private func remove(_ peer: Peer, in state: inout State) {
        guard let member = state.members.remove(peer) else { return }
        if case .dropped(let timer) = member.phase { timer.cancel() }
        if member.announced {
            state.members.broadcast(OutboundMessage(.leave(peer)), except: peer)
            sequencer.participantLeft(peer)
            webhooks?.left(room: name, member.participant, last: state.members.isAlone(nil))
        }
    }

    /// Reports every announced member as left, the last one ending the session unless others are
    /// connected to other nodes.
    private func reportEveryoneLeaving(in state: State) {
        guard let webhooks else { return }
        let leaving = state.members.here.values.filter(\.announced)
            .sorted { ($0.identity.user, $0.identity.client) < ($1.identity.user, $1.identity.client) }
        for (index, member) in leaving.enumerated() {
            webhooks.left(room: name, member.participant, last: index == leaving.count - 1 && state.members.elsewhere.isEmpty)
        }
    }
}

// MARK: - What the sequencer reports

extension Room: RoomOutcomes {
    package func release(_ event: PatchEvent) {
        let frames = ReleasedFrames(event)
        let arrival: ContinuousClock.Instant? = state.withLock { state in
            guard !state.broken else { return nil }
            return send(event, frames, in: &state)
        }
        if let arrival { observeCommitLatency(since: arrival) }
    }

    /// Nothing is sent when the patch's release answered it already or when a duplicate's rev is not
    /// released yet (its release will answer).
    package func settle(_ message: ServerMessage, seq: Int64, author: Peer) {
        state.withLock { state in
            guard let awaiting = state.writes.waiting(author: author, seq: seq) else { return }
            if case .ack(_, let rev, _, _) = message, rev > state.gate.releasedRev { return }
            _ = state.writes.take(author: author, seq: seq)
            answer(message, to: author, connection: awaiting.connection, in: &state)
        }
    }

    package func abandon(seq: Int64, author: Peer, message: String) {
        let connection: ConnectionID? = state.withLock { $0.writes.take(author: author, seq: seq)?.connection }
        if let connection { fail(peer: author, connection: connection, message: message) }
    }

    package func httpSequenced(seq: Int64, _ outcome: HTTPWriteOutcome, waitingForRelease: Bool) {
        let ready: (@Sendable (HTTPWriteOutcome) -> Void)? = state.withLock { state in
            guard let write = state.writes.takeHTTP(submittedWith: seq) else { return nil }
            if waitingForRelease, state.serving, case .applied(let rev) = outcome, rev > state.gate.releasedRev {
                state.writes.holdHTTP(at: rev, PendingWrites.HTTPWrite(answer: write, durable: true))
                return nil
            }
            return write
        }
        ready?(outcome)
    }

    /// Everyone is closed; they resume against a fresh load from storage, and the registry drops this instance.
    package func storageFailed(_ error: StorageError, rev: Int64) {
        logger.error("room.commit_failed", LogField("room", name), LogField("rev", "\(rev)"), LogField("error", error.description))
        failAll()
    }
}

// MARK: - Sequenced by a shared log

extension Room: ReplicatedRoom {
    package func fold(_ event: PatchEvent, epoch: String) throws(RoomFoldFailure) {
        let frames = ReleasedFrames(event)
        let arrival: ContinuousClock.Instant? = try state.withLock { (state) throws(RoomFoldFailure) -> ContinuousClock.Instant? in
            guard state.serving, event.rev > state.core.rev else { return nil }
            guard event.rev == state.core.rev + 1, state.core.epoch == epoch else {
                throw .outOfOrder("rev \(event.rev) of epoch \(epoch) does not follow rev \(state.core.rev) of epoch \(state.core.epoch)")
            }
            do throws(PatchError) {
                try state.core.fold(event)
            } catch {
                throw .doesNotApply("rev \(event.rev) did not apply (\(error))")
            }
            return send(event, frames, in: &state)
        }
        if let arrival { observeCommitLatency(since: arrival) }
    }

    package func relay(_ signal: ServerMessage) {
        guard case .signal(let from, _, _) = signal else { return }
        let message = OutboundMessage(signal)
        state.withLock { state in
            guard state.serving else { return }
            state.members.broadcast(message, except: from)
        }
    }

    package func presentParticipants() -> [Participant] {
        state.withLock { $0.members.announcedHere }
    }

    /// Peers connected here are ignored (a participant that moved here from a node that died is still
    /// listed there until its entry lapses).
    package func updateRemoteParticipants(_ participants: [Participant]) {
        state.withLock { state in
            guard state.serving else { return }
            state.members.replaceElsewhere(with: participants)
        }
    }

    package func contentsForReseed() -> (state: [UInt8], epoch: String, lastSeqs: [Peer: Int64], forgot: Bool)? {
        state.withLock { state in
            guard state.serving,
                  state.core.rev > 0 || !state.core.progress.isEmpty || state.core.document.root != .emptyObject else { return nil }
            return (state.core.document.root.serializedBytes(), state.core.epoch, state.core.progress.mapValues(\.lastSeq), state.core.hasForgottenClients)
        }
    }
}
