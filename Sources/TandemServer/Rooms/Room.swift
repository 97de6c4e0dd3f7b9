import Synchronization
import TandemProtocol
import TandemRedis

/// One live room: its `RoomCore`, its participants, and the ordered release of everything
/// that must wait for storage.
///
/// Thread-safety: every method may be called from any thread; state is behind one mutex.
/// Ordering: patches, acks, rejects and welcomes are released from commit-queue completions,
/// which run in submission order, so every connection sees them in rev order, and nothing is
/// shown to anyone before it is durable. In a cluster the same holds with Redis as the store: patch
/// events and acks are released as this node folds the room's log, in rev order. Presence and
/// signals are ephemeral and go out at once.
final class Room: Sendable {
    /// Who gives the room's patches their revs.
    enum Sequencing: Sendable {
        /// This server alone: `RoomCore` sequences, the commit queue makes each patch durable.
        case local(CommitQueue)
        /// A cluster: Redis sequences; the room folds the log and fans out from there.
        case cluster(ClusterNode)
    }

    /// A patch of a local connection waiting for its rev in the cluster.
    private struct InFlight {
        var connection: ConnectionID
        var arrival: ContinuousClock.Instant
    }

    private struct ClientSeq: Hashable {
        var client: String
        var seq: Int64
    }

    /// How a join ended up.
    enum JoinOutcome: Sendable, Equatable {
        /// Accepted; the welcome follows once storage has caught up.
        case accepted
        /// Refused and closed (room full, client id held by another user).
        case refused
        /// This room instance was unloaded meanwhile; look the room up again.
        case retired
    }

    private enum Phase {
        /// Waiting for its welcome to be released.
        case pending
        /// Welcomed: receives patches, presence, signals.
        case live
        /// Connection lost; kept until the grace timer fires.
        case dropped(any ScheduledTimer)

        var isDropped: Bool { if case .dropped = self { true } else { false } }
    }

    private struct Member {
        var identity: SessionIdentity
        var name: String?
        var tokenExpiry: Int64
        var data: JSONValue
        var sink: any SessionSink
        var connection: ConnectionID
        var phase: Phase
        /// Whether the others have been told of this participant (join sent).
        var announced: Bool

        var participant: Participant {
            Participant(user: identity.user, client: identity.client, role: identity.role, name: name, data: data)
        }

        var isLive: Bool { if case .live = phase { true } else { false } }
    }

    private struct State {
        var core: RoomCore
        var members: [String: Member] = [:]
        var retired = false
        /// Set when storage failed: the room refuses everything until it is reloaded.
        var broken = false
        /// Cluster only: local patches submitted and not folded yet, so the fold acks the right connection.
        var inFlight: [ClientSeq: InFlight] = [:]
        /// Cluster only: participants connected to other nodes, by client id (never one connected here).
        var remote: [String: Participant] = [:]
    }

    let name: String
    private let state: Mutex<State>
    private let sequencing: Sequencing
    private let scheduler: any TimerScheduler
    private let settings: RoomSettings
    private let metrics: ServerMetrics
    private let logger: Logger
    /// Called (outside the lock) when the last participant has gone, or storage failed.
    private let onIdle: @Sendable (Room) -> Void
    /// Whether a host removed this user from the room (asked under the room's lock when they join).
    private let isDenied: @Sendable (_ room: String, _ user: String) -> Bool

    init(core: RoomCore, sequencing: Sequencing, scheduler: any TimerScheduler, settings: RoomSettings,
         metrics: ServerMetrics, logger: Logger, isDenied: @escaping @Sendable (_ room: String, _ user: String) -> Bool = { _, _ in false },
         onIdle: @escaping @Sendable (Room) -> Void) {
        self.isDenied = isDenied
        name = core.name
        state = Mutex(State(core: core))
        self.sequencing = sequencing
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

    /// Admits a connection. A newer connection with the same client id replaces the older one
    /// (closed with 4009); one arriving within the grace period of a dropped connection takes
    /// its place without leave/join events. Newer means accepted later (higher `ConnectionID`), not
    /// joined later: an old connection whose join was delayed (a slow room load on a busy loop) is
    /// the one closed, so a client that gave up on it and reconnected keeps its new connection.
    func join(_ request: JoinRequest, sink: any SessionSink, connection: ConnectionID) -> JoinOutcome {
        let client = request.identity.client
        var replaced: (any SessionSink)?
        let outcome: JoinOutcome = state.withLock { state in
            guard !state.retired, !state.broken else { return .retired }
            if isDenied(name, request.identity.user) {
                sink.close(.forbidden, error: OutboundMessage(.error(code: .forbidden, message: "a host removed you from room '\(name)'; you cannot rejoin with this token")))
                return .refused
            }
            let existing = state.members[client]
            if let existing, existing.identity.user != request.identity.user {
                sink.close(.forbidden, error: OutboundMessage(.error(code: .forbidden, message: "client id '\(client)' is in use by another user in this room")))
                return .refused
            }
            if let existing, existing.connection.rawValue > connection.rawValue, !existing.phase.isDropped {
                sink.close(.replaced, error: OutboundMessage(.error(code: .replaced, message: "a newer connection with the same client id is connected")))
                return .refused
            }
            if existing == nil && state.members.count >= settings.maxParticipants {
                sink.close(.roomFull, error: OutboundMessage(.error(code: .roomFull, message: "room '\(name)' is full (\(settings.maxParticipants) participants)")))
                return .refused
            }
            // A participant the others know from another node (it moved here) is not announced again.
            var announced = state.remote.removeValue(forKey: client) != nil
            if let existing {
                switch existing.phase {
                case .dropped(let timer): timer.cancel()
                case .pending, .live: replaced = existing.sink
                }
                announced = existing.announced || announced
                if existing.announced && existing.data != request.presence {
                    broadcast(OutboundMessage(.presence(existing.participant.peer, data: request.presence)), in: state, except: client)
                }
            }
            state.members[client] = Member(identity: request.identity, name: request.name, tokenExpiry: request.tokenExpiry,
                                           data: request.presence, sink: sink,
                                           connection: connection, phase: .pending, announced: announced)
            scheduleWelcome(for: request, connection: connection, in: &state)
            return .accepted
        }
        replaced?.close(.replaced, error: OutboundMessage(.error(code: .replaced, message: "a newer connection with the same client id took over")))
        return outcome
    }

    /// Submits a patch from `connection`. Its ack (or reject) and the others' patch events are
    /// released after the commit, in rev order.
    func submit(seq: Int64, ops: [PatchOp], from connection: ConnectionID, client: String) {
        let arrival = ContinuousClock.now
        state.withLock { state in
            guard !state.broken, let member = state.members[client], member.connection == connection else { return }
            guard case .local(let commits) = sequencing else {
                submitToCluster(seq: seq, ops: ops, member: member, arrival: arrival, in: &state)
                return
            }
            switch state.core.submit(seq: seq, ops: ops, author: member.identity, now: settings.wallClock()) {
            case .applied(let event, let writes):
                commits.write(writes) { [self] result in
                    release(event, from: connection, arrival: arrival, result: result)
                }
            case .duplicate(let seq, let rev):
                let room = name
                let fallback = state.core.rev
                commits.read({ (store) throws(StorageError) -> Int64 in
                    // A seq older than the stored history gets the current rev, as the protocol says.
                    if let rev { return rev }
                    return try store.revision(room: room, client: client, seq: seq) ?? fallback
                }) { [self] result in
                    let rev = (try? result.get()) ?? fallback
                    deliver(OutboundMessage(.ack(seq: seq, rev: rev, duplicate: true)), to: client, connection: connection)
                }
            case .rejected(let seq, let error):
                metrics.rejects.increment(error.code.wireValue)
                // Through the queue, so the reject cannot overtake acks still waiting for their commit.
                commits.read({ (_) throws(StorageError) in () }) { [self] _ in
                    deliver(OutboundMessage(.reject(seq: seq, code: error.code, message: error.description)), to: client, connection: connection)
                }
            }
        }
    }

    /// Replaces a participant's presence data and tells the others.
    func updatePresence(_ data: JSONValue, from connection: ConnectionID, client: String) {
        state.withLock { state in
            guard var member = state.members[client], member.connection == connection else { return }
            member.data = data
            state.members[client] = member
            if member.announced {
                broadcast(OutboundMessage(.presence(member.participant.peer, data: data)), in: state, except: client)
            }
        }
    }

    /// Relays an ephemeral event to the other live participants (in a cluster, through Redis to the
    /// other nodes' too); nothing is stored.
    func signal(event: String, data: JSONValue, from connection: ConnectionID, client: String) {
        state.withLock { state in
            guard let member = state.members[client], member.connection == connection, member.isLive else { return }
            let message = ServerMessage.signal(from: member.participant.peer, event: event, data: data)
            broadcast(OutboundMessage(message), in: state, except: client)
            if case .cluster(let node) = sequencing { node.publish(room: name, payload: message.encoded()) }
        }
    }

    /// A connection ended. A clean close (1000) leaves at once; a dropped connection is kept for
    /// the grace period so that a quick reconnect causes no leave/join.
    func disconnect(_ connection: ConnectionID, client: String, clean: Bool) {
        let becameIdle: Bool = state.withLock { state in
            guard let member = state.members[client], member.connection == connection else { return false }
            if clean || !member.announced {
                remove(client, in: &state)
                return state.members.isEmpty
            }
            let timer = scheduler.schedule(after: settings.presenceGrace) { [weak self] in
                self?.expire(client, connection: connection)
            }
            state.members[client]?.phase = .dropped(timer)
            return false
        }
        if becameIdle { onIdle(self) }
    }

    /// Whether this instance accepts no more joins (unloaded, shut down or broken).
    var isRetired: Bool { state.withLock { $0.retired || $0.broken } }

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
    /// and each is closed with 4003 and `message`. Returns the expiry of each removed connection's token.
    func removeUser(_ user: String, reason message: String) -> [Int64] {
        let (removed, becameIdle): ([Member], Bool) = state.withLock { state in
            let members = state.members.values.filter { $0.identity.user == user }
            for member in members { remove(member.identity.client, in: &state) }
            return (members, !members.isEmpty && state.members.isEmpty)
        }
        for member in removed { member.sink.close(.forbidden, error: OutboundMessage(.error(code: .forbidden, message: message))) }
        if becameIdle { onIdle(self) }
        return removed.map(\.tokenExpiry)
    }

    /// Closes every connection (e.g. server shutdown) without waiting for grace periods.
    func closeAll(_ code: CloseCode, error: ErrorCode, message: String) {
        let sinks: [any SessionSink] = state.withLock { state in
            let sinks = state.members.values.map(\.sink)
            for member in state.members.values { if case .dropped(let timer) = member.phase { timer.cancel() } }
            state.members.removeAll()
            state.retired = true
            return sinks
        }
        for sink in sinks { sink.close(code, error: OutboundMessage(.error(code: error, message: message))) }
    }

    // MARK: - Release after storage

    private func scheduleWelcome(for request: JoinRequest, connection: ConnectionID, in state: inout State) {
        let core = state.core
        let client = request.identity.client
        let lastSeq = core.lastSeq(of: client)
        let forgotten = core.mayHaveForgotten(client)
        let welcome: @Sendable (Welcome.Sync) -> Void = { [self] sync in
            releaseWelcome(Welcome(epoch: core.epoch, rev: core.rev, sync: sync, lastSeq: lastSeq, forgotten: forgotten, you: request.identity,
                                   participants: [], heartbeat: settings.heartbeat, limits: settings.limits),
                           client: client, connection: connection)
        }
        guard case .local(let commits) = sequencing else {
            scheduleClusterWelcome(for: request, connection: connection, in: &state)
            return
        }
        switch core.plan(resume: request.resume) {
        case .snapshot:
            metrics.snapshots.increment()
            let snapshot = core.document.root
            commits.read({ (_) throws(StorageError) in () }) { _ in welcome(.state(snapshot)) }
        case .replay(let events):
            if request.resume != nil { metrics.resumes.increment() }
            commits.read({ (_) throws(StorageError) in () }) { _ in welcome(.replay(events)) }
        case .replayFromStorage(let after):
            metrics.resumes.increment()
            let room = name, through = core.rev
            commits.read({ (store) throws(StorageError) -> [StoredPatch] in
                try store.patches(room: room, after: after, limit: Int(through - after))
            }) { [self] result in
                do {
                    let events = try result.get().map { (patch) throws -> PatchEvent in
                        PatchEvent(rev: patch.rev, user: patch.user, client: patch.client, seq: patch.seq,
                                   ops: try PatchOp.list(from: try JSONValue.parseStored(patch.ops)))
                    }
                    guard events.count == Int(through - after) else { throw StorageError.unknownRoom(room) }
                    welcome(.replay(events))
                } catch {
                    logger.error("room.replay_failed", LogField("room", room), LogField("error", "\(error)"))
                    fail(client: client, connection: connection)
                }
            }
        }
    }

    private func releaseWelcome(_ base: Welcome, client: String, connection: ConnectionID) {
        state.withLock { state in welcome(base, client: client, connection: connection, in: &state) }
    }

    /// Makes the member live and sends its welcome, then tells the others it joined.
    private func welcome(_ base: Welcome, client: String, connection: ConnectionID, in state: inout State) {
        guard var member = state.members[client], member.connection == connection else { return }
        member.phase = .live
        let wasAnnounced = member.announced
        member.announced = true
        state.members[client] = member
        var welcome = base
        welcome.participants = (state.members.values.filter(\.announced).map(\.participant) + state.remote.values)
            .sorted { ($0.user, $0.client) < ($1.user, $1.client) }
        member.sink.send(OutboundMessage(.welcome(welcome)))
        if !wasAnnounced {
            broadcast(OutboundMessage(.join(member.participant)), in: state, except: client)
        }
    }

    private func release(_ event: PatchEvent, from connection: ConnectionID, arrival: ContinuousClock.Instant, result: Result<Void, StorageError>) {
        switch result {
        case .success:
            observeCommitLatency(since: arrival)
            let ack = OutboundMessage(.ack(seq: event.seq, rev: event.rev, duplicate: false))
            let patch = OutboundMessage(.patch(event))
            state.withLock { state in
                for member in state.members.values where member.isLive {
                    // The sending connection gets its ack; everyone else, a newer connection of the
                    // same client included, gets the patch event.
                    member.sink.send(member.connection == connection && member.identity.client == event.client ? ack : patch)
                }
            }
        case .failure(let error):
            logger.error("room.commit_failed", LogField("room", name), LogField("rev", "\(event.rev)"), LogField("error", error.description))
            failAll()
        }
    }

    private func observeCommitLatency(since arrival: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - arrival
        metrics.commitLatency.observe(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    private func deliver(_ message: OutboundMessage, to client: String, connection: ConnectionID) {
        state.withLock { state in
            guard let member = state.members[client], member.connection == connection else { return }
            member.sink.send(message)
        }
    }

    private func fail(client: String, connection: ConnectionID,
                      message: String = "the server could not read the room's history; reconnect to resume") {
        let sink: (any SessionSink)? = state.withLock { state in
            guard let member = state.members[client], member.connection == connection else { return nil }
            remove(client, in: &state)
            return member.sink
        }
        sink?.close(.internalError, error: OutboundMessage(.error(code: .internal, message: message)))
    }

    /// Storage lost a write that memory already holds: stop serving this instance, close
    /// everyone (they resume against a fresh load from storage), and let the registry drop it.
    private func failAll(message: String = "the server could not store a change; reconnect to resume") {
        state.withLock { $0.broken = true }
        closeAll(.internalError, error: .internal, message: message)
        onIdle(self)
    }

    private func expire(_ client: String, connection: ConnectionID) {
        let becameIdle: Bool = state.withLock { state in
            guard let member = state.members[client], member.connection == connection, case .dropped = member.phase else { return false }
            remove(client, in: &state)
            return state.members.isEmpty
        }
        if becameIdle { onIdle(self) }
    }

    private func remove(_ client: String, in state: inout State) {
        guard let member = state.members.removeValue(forKey: client) else { return }
        if case .dropped(let timer) = member.phase { timer.cancel() }
        if member.announced {
            broadcast(OutboundMessage(.leave(member.participant.peer)), in: state, except: client)
            if case .cluster(let node) = sequencing { node.presence.left(room: name, client: client) }
        }
    }

    private func broadcast(_ message: OutboundMessage, in state: State, except client: String) {
        for (key, member) in state.members where key != client && member.isLive {
            member.sink.send(message)
        }
    }
}

// MARK: - Cluster

extension Room {
    /// Hands a local patch to the cluster (through the room's queue, so a connection's patches reach Redis
    /// in arrival order). Its ack goes out when this node folds it; duplicates and rejects when the
    /// node answers, which is after every earlier patch of the room was folded.
    private func submitToCluster(seq: Int64, ops: [PatchOp], member: Member, arrival: ContinuousClock.Instant, in state: inout State) {
        guard case .cluster(let node) = sequencing else { return }
        let client = member.identity.client, connection = member.connection
        guard member.identity.role != .viewer else {
            let error = PatchError.forbidden(reason: "a viewer may not change the room")
            metrics.rejects.increment(error.code.wireValue)
            member.sink.send(OutboundMessage(.reject(seq: seq, code: error.code, message: error.description)))
            return
        }
        state.inFlight[ClientSeq(client: client, seq: seq)] = InFlight(connection: connection, arrival: arrival)
        node.submit(room: name, client: client, user: member.identity.user, seq: seq, ops: ops) { [self] result in
            finishClusterSubmission(result, seq: seq, client: client, connection: connection)
        }
    }

    private func finishClusterSubmission(_ result: Result<ClusterSubmitOutcome, ClusterError>, seq: Int64, client: String, connection: ConnectionID) {
        let key = ClientSeq(client: client, seq: seq)
        switch result {
        case .success(.applied):
            break // acked by the fold
        case .success(.duplicate(let rev)):
            state.withLock { state in
                // No entry: the fold of this very submission acked it already. A rev not folded yet: the
                // fold will (a resubmission after a lost Redis connection had been appended after all).
                guard state.inFlight[key] != nil, rev <= state.core.rev else { return }
                state.inFlight[key] = nil
                guard let member = state.members[client], member.connection == connection else { return }
                member.sink.send(OutboundMessage(.ack(seq: seq, rev: rev, duplicate: true)))
            }
        case .success(.rejected(let reason)):
            let (code, message) = ClusterRejection.decode(reason)
            metrics.rejects.increment(code.wireValue)
            state.withLock { state in
                state.inFlight[key] = nil
                guard let member = state.members[client], member.connection == connection else { return }
                member.sink.send(OutboundMessage(.reject(seq: seq, code: code, message: message)))
            }
        case .failure(let error):
            state.withLock { _ = $0.inFlight.removeValue(forKey: key) }
            if case .roomReset = error { return } // the reset closes everyone
            logger.error("cluster.submit_failed", LogField("room", name), LogField("client", client), LogField("error", error.description))
            fail(client: client, connection: connection, message: "the cluster could not sequence your change (\(error.description)); reconnect to resume")
        }
    }

    /// Welcomes at once from memory (nothing waits for storage in a cluster), or after reading the
    /// missed patches from Redis when this node's memory does not reach back far enough.
    private func scheduleClusterWelcome(for request: JoinRequest, connection: ConnectionID, in state: inout State) {
        guard case .cluster(let node) = sequencing else { return }
        let core = state.core
        let client = request.identity.client
        let base = Welcome(epoch: core.epoch, rev: core.rev, sync: .replay([]), lastSeq: core.lastSeq(of: client), you: request.identity,
                           participants: [], heartbeat: settings.heartbeat, limits: settings.limits)
        let synced: @Sendable (Welcome.Sync) -> Welcome = { sync in
            var welcome = base
            welcome.sync = sync
            return welcome
        }
        switch core.plan(resume: request.resume) {
        case .snapshot:
            metrics.snapshots.increment()
            welcome(synced(.state(core.document.root)), client: client, connection: connection, in: &state)
        case .replay(let events):
            if request.resume != nil { metrics.resumes.increment() }
            welcome(synced(.replay(events)), client: client, connection: connection, in: &state)
        case .replayFromStorage(let after):
            metrics.resumes.increment()
            let room = name
            Task { [self] in
                do throws(ClusterError) {
                    let events = try await node.patches(room: room, after: after, through: core.rev)
                    self.state.withLock { state in
                        welcome(catchingUp(synced(.replay(events)), client: client, in: state), client: client, connection: connection, in: &state)
                    }
                } catch {
                    logger.error("room.replay_failed", LogField("room", room), LogField("error", error.description))
                    fail(client: client, connection: connection)
                }
            }
        }
    }

    /// A welcome prepared at an older rev, brought up to the room's rev: the member was not live, so the
    /// patches folded meanwhile are added to its replay (or it gets a snapshot if memory lost them).
    private func catchingUp(_ welcome: Welcome, client: String, in state: State) -> Welcome {
        var welcome = welcome
        let core = state.core
        if welcome.rev < core.rev, case .replay(let events) = welcome.sync {
            if let later = core.recent.events(after: welcome.rev, through: core.rev) {
                welcome.sync = .replay(events + later)
            } else {
                welcome.sync = .state(core.document.root)
            }
        }
        welcome.rev = core.rev
        welcome.lastSeq = core.lastSeq(of: client)
        return welcome
    }

    /// The participants connected to this node that the others know of (grace periods included), for
    /// the cluster's presence entries.
    func presentParticipants() -> [Participant] {
        state.withLock { $0.members.values.filter(\.announced).map(\.participant) }
    }

    /// The participants other nodes announce right now: the difference to the last call becomes join,
    /// presence and leave events for this node's connections. Client ids connected here are ignored
    /// (a participant that moved here from a node that died is still listed there until its entry lapses).
    func updateRemoteParticipants(_ participants: [Participant]) {
        state.withLock { state in
            guard !state.retired, !state.broken else { return }
            var incoming: [String: Participant] = [:]
            for participant in participants where state.members[participant.client] == nil {
                incoming[participant.client] = incoming[participant.client] ?? participant
            }
            for (client, gone) in state.remote where incoming[client] == nil {
                broadcast(OutboundMessage(.leave(gone.peer)), in: state, except: client)
            }
            for (client, participant) in incoming {
                if let known = state.remote[client] {
                    if known.data != participant.data {
                        broadcast(OutboundMessage(.presence(participant.peer, data: participant.data)), in: state, except: client)
                    }
                } else {
                    broadcast(OutboundMessage(.join(participant)), in: state, except: client)
                }
            }
            state.remote = incoming
        }
    }

    /// What the cluster engine reports for this room, in rev order (see `ClusterRoomLink`).
    func apply(_ event: ClusterRoomEvent) {
        switch event {
        case .folded(let patch):
            let ops: [PatchOp]
            do {
                ops = try ClusterDocumentReplica.ops(patch.ops)
            } catch {
                clusterReset(reason: "rev \(patch.rev) in the log is unreadable (\(error))")
                return
            }
            let event = PatchEvent(rev: patch.rev, user: patch.user, client: patch.client, seq: patch.seq, ops: ops)
            let failure: String? = state.withLock { state in
                guard !state.retired, !state.broken, event.rev > state.core.rev else { return nil }
                guard event.rev == state.core.rev + 1, state.core.epoch == patch.epoch else {
                    return "rev \(event.rev) of epoch \(patch.epoch) does not follow rev \(state.core.rev) of epoch \(state.core.epoch)"
                }
                do throws(PatchError) {
                    try state.core.fold(event)
                } catch {
                    return "rev \(event.rev) did not apply (\(error))"
                }
                let author = state.inFlight.removeValue(forKey: ClientSeq(client: event.client, seq: event.seq))
                if let author { observeCommitLatency(since: author.arrival) }
                let ack = OutboundMessage(.ack(seq: event.seq, rev: event.rev, duplicate: false))
                let message = OutboundMessage(.patch(event))
                for member in state.members.values where member.isLive {
                    member.sink.send(member.connection == author?.connection && member.identity.client == event.client ? ack : message)
                }
                return nil
            }
            if let failure { clusterReset(reason: failure) }
        case .reset(let reason):
            clusterReset(reason: reason)
        case .signal(let signal):
            guard case .cluster(let node) = sequencing, signal.node != node.settings.nodeID,
                  let decoded = try? ServerMessage.decode(signal.payload), case .signal(let from, _, _) = decoded else { return }
            let message = OutboundMessage(decoded)
            state.withLock { state in
                guard !state.retired, !state.broken else { return }
                broadcast(message, in: state, except: from.client)
            }
        }
    }

    private func clusterReset(reason: String) {
        logger.error("cluster.room_reset", LogField("room", name), LogField("reason", reason))
        // If Redis lost the room (a restart without persistence), this node's copy brings it back.
        let seed: (state: [UInt8], lastSeqs: [String: Int64])? = state.withLock { state in
            guard !state.retired, !state.broken,
                  state.core.rev > 0 || !state.core.progress.isEmpty || state.core.document.root != .emptyObject else { return nil }
            return (state.core.document.root.serializedBytes(), state.core.progress.mapValues(\.lastSeq))
        }
        if case .cluster(let node) = sequencing, let seed { node.reseed(name, state: seed.state, lastSeqs: seed.lastSeqs) }
        failAll(message: "the room's history was reset in the cluster (\(reason)); reconnect to get the current state")
    }
}

/// Identifies one connection for the lifetime of the server, so a room can tell a stale
/// connection from the one that replaced it under the same client id.
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The number, unique per server and increasing in the order connections are accepted (which
    /// of two connections of one client is the newer).
    public let rawValue: UInt64

    /// Wraps a number.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// `#N`.
    public var description: String { "#\(rawValue)" }
}
