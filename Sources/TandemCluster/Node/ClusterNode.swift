import TandemSynchronization
import TandemProtocol
import TandemRedis
import TandemServer
import TandemWire

/// This server's part in a cluster: the Redis clients, the engine that sequences and folds the rooms it
/// serves (`ClusterRoomSync`), and one ordered queue of work per room.
///
/// Nodes share nothing but Redis. A patch gets its rev in Redis; every node folds the room's log in rev
/// order and fans it out from there, so acks and patch events reach each connection in rev order, and an
/// ack means Redis accepted the write. Thread-safe; `shutdown()` once at the end.
final class ClusterNode: Sendable {
    /// Where Redis is and how this node names itself.
    struct Settings: Sendable {
        var redis: RedisDeployment
        var nodeID: String
        /// Revs kept in each room's log in Redis: the resume window and the history the rooms API reads.
        var logLength: Int
        var limits: PatchLimits
        /// Revs between two snapshots stored in Redis (what a load and `state?rev=` start from).
        var snapshotInterval: Int64 = 1_000
        /// When set, history older than this many milliseconds is dropped at each snapshot, except the
        /// newest `resumeWindow` revs (`--retain-days`).
        var retainedMilliseconds: Int64?
        /// The revs a client can resume across, never dropped by age (`--history`).
        var resumeWindow: Int64 = 0
        /// How long one blocking read of the logs waits: a room opened meanwhile is followed from the next read.
        var followTimeout: Duration = .milliseconds(200)
        /// How often the follower reads every followed room's epoch, to notice a room Redis lost while
        /// nobody writes to it (one read per room, so not at every poll).
        var epochCheckInterval: Duration = .milliseconds(500)
        /// Participants across nodes.
        var presence = ClusterPresenceSync.Settings()
        /// The least time between the starts of two calls that append to Redis (`AppendCoalescer`).
        var commitInterval: Duration = .zero
        /// A client's progress is dropped from Redis once its room has not applied a patch of it for this long, ms.
        var progressTTL: Int64 = 30 * 86_400_000
        /// The most clients whose progress a room keeps in Redis.
        var maxTrackedClients = 10_000
    }

    let settings: Settings
    let engine: ClusterRoomSync<ClusterDocumentReplica>
    private let sequencerClient: any RedisCommandSending
    private let followerClient: any RedisCommandSending
    private let followLoop: Task<Void, Never>
    private let presenceLoop: Task<Void, Never>
    /// Participants across nodes.
    let presence: ClusterPresenceSync
    /// The removals every node mirrors.
    let removals: ClusterRemovals
    private let links = ClusterRoomLinks()
    let logger: Logger
    /// Set by `shutdown()`: room work that has not started yet fails at once instead of reaching Redis.
    private let closing = AtomicValue<Bool>(false)

    /// A node of the cluster; it connects to Redis lazily.
    /// - Parameters:
    ///   - wallClock: milliseconds since 1970, for presence entries (shared with the other nodes' clocks).
    ///   - clock: what the presence loop waits on between ticks, and what paces the calls that append.
    init(settings: Settings, group: EventLoopGroup, logger: Logger,
         wallClock: @escaping @Sendable () -> Int64, clock: any Clock<Duration> = ContinuousClock()) {
        self.settings = settings
        self.logger = logger
        sequencerClient = settings.redis.client(group: group, readsServerRunID: true)
        followerClient = settings.redis.client(group: group, readsServerRunID: true)
        var sequencerSettings = RedisRoomSequencer.Settings(logLength: settings.logLength, maxOps: settings.limits.maxOps,
                                                            maxPatchBytes: max(settings.limits.maxDocument, 1 << 16))
        sequencerSettings.snapshotInterval = settings.snapshotInterval
        sequencerSettings.retainedMilliseconds = settings.retainedMilliseconds
        sequencerSettings.resumeWindow = settings.resumeWindow
        sequencerSettings.progressTTL = settings.progressTTL
        sequencerSettings.maxTrackedClients = settings.maxTrackedClients
        let limits = settings.limits
        let engine = ClusterRoomSync<ClusterDocumentReplica>(
            sequencer: RedisRoomSequencer(client: sequencerClient, settings: sequencerSettings, now: wallClock, coalescesRooms: true,
                                          commitInterval: settings.commitInterval, clock: clock),
            follower: RoomLogFollower(sequencer: RedisRoomSequencer(client: followerClient, settings: sequencerSettings),
                                      blockTimeout: settings.followTimeout, epochCheckInterval: settings.epochCheckInterval),
            snapshotInterval: settings.snapshotInterval,
            makeReplica: { try ClusterDocumentReplica(snapshot: $0, limits: limits) })
        self.engine = engine
        followLoop = Task { await engine.run() }
        let presence = ClusterPresenceSync(client: sequencerClient, nodeID: settings.nodeID, settings: settings.presence, now: wallClock, clock: clock)
        self.presence = presence
        removals = ClusterRemovals(client: sequencerClient)
        let links = links
        presenceLoop = Task {
            await presence.run { links.rooms() }
        }
    }

    /// The participants connected to this node, per room.
    func presentParticipants() -> [(room: String, participant: Participant)] {
        links.rooms().flatMap { room in room.presentParticipants().map { (room.name, $0) } }
    }

    /// Opens `room` in the engine (creating it in Redis if needed) and calls `completion` with the room's
    /// state at the rev the engine holds; later revs wait in the link until a `Room` is attached.
    func load(_ room: String, settings core: RoomCore.Settings, completion: @escaping @Sendable (Result<(RoomCore, ClusterRoomLink), ClusterError>) -> Void) {
        let link = links.link(for: room)
        link.queue.enqueue { [self] in
            guard !closing.load(ordering: .acquiring) else {
                link.detach()
                completion(.failure(.roomNotOpen(room)))
                return
            }
            link.beginBuffering()
            do throws(ClusterError) {
                let head = try await engine.open(room: room) { link.receive($0) }
                guard let (epoch, rev, replica) = await engine.state(of: room) else { throw ClusterError.roomNotOpen(room) }
                let stored: RoomProgress
                do throws(RedisError) {
                    stored = try await engine.sequencer.clientProgress(room: room)
                } catch {
                    throw ClusterError.redis(error)
                }
                // Entries newer than the replica arrive with their folds.
                let progress = stored.clients.compactMapValues { $0.lastRev <= rev ? ClientProgress(lastSeq: $0.lastSeq, lastRev: $0.lastRev) : nil }
                if head.created || head.rotated {
                    logger.info("cluster.room_epoch", LogField("room", room), LogField("epoch", epoch), LogField("rev", "\(rev)"),
                                LogField("why", head.created ? "created" : "redis restarted"))
                }
                completion(.success((.cluster(name: room, epoch: epoch, rev: rev, document: replica.document, progress: progress,
                                                    forgotClients: stored.forgot, settings: core), link)))
            } catch {
                link.detach()
                links.remove(link)
                logger.error("cluster.load_failed", LogField("room", room), LogField("error", error.description))
                completion(.failure(error))
            }
        }
    }

    /// Sequences one patch (a room's patches reach Redis in the order of these calls, batched) and calls
    /// `completion` with the outcome: `.applied` once Redis appended it (the fold acks it),
    /// `.duplicate` / `.rejected` once this node has folded every earlier patch of its own. `base`: the rev the
    /// ops were made on, when the client said.
    func submit(room: String, client: String, user: String, seq: Int64, ops: [PatchOp], base: Int64? = nil, ifRev: Int64? = nil,
                completion: @escaping @Sendable (Result<ClusterSubmitOutcome, ClusterError>) -> Void) {
        // Not sent: the author resends it with the same seq after reconnecting (to any node).
        guard !closing.load(ordering: .acquiring) else {
            completion(.failure(.roomReset(room, reason: "this node is shutting down")))
            return
        }
        var encoded: [UInt8] = []
        PatchOp.write(ops, into: &encoded)
        engine.enqueue(room: room, .init(client: client, user: user, seq: seq, ops: encoded, parsed: ops, base: base, ifRev: ifRev, completion: completion))
    }

    /// After a reset, ahead of any reload of the room on this node: a room a backend deleted closes its
    /// connections as deleted (4004); otherwise, if Redis lost the room, this node's copy brings it back
    /// (a new epoch whose snapshot is the copy, with each client's last seq; when several nodes try, the
    /// first one's copy wins), and the connections are closed to reconnect.
    private func reset(_ room: any ReplicatedRoom, reason: String) {
        let copy = room.contentsForReseed()
        let epoch = copy?.epoch ?? room.epoch
        links.link(for: room.name).queue.enqueue { [engine, logger] in
            let deleted = (try? await engine.sequencer.deletedEpoch(room: room.name)) == epoch
            if !deleted, let copy {
                do throws(RedisError) {
                    if try await engine.sequencer.seed(room: room.name, state: copy.state, epoch: copy.epoch, lastSeqs: copy.lastSeqs,
                                                       forgot: copy.forgot) == .seeded {
                        logger.warning("cluster.room_reseeded", LogField("room", room.name), LogField("bytes", "\(copy.state.count)"))
                    }
                } catch {
                    logger.error("cluster.reseed_failed", LogField("room", room.name), LogField("error", error.description))
                }
            }
            if deleted {
                logger.info("room.deleted", LogField("room", room.name))
                room.stopServing(.roomDeleted, error: .roomDeleted, message: "room '\(room.name)' was deleted")
            } else {
                logger.error("cluster.room_reset", LogField("room", room.name), LogField("reason", reason))
                room.failAll(message: "the room's history was reset in the cluster (\(reason)); reconnect to get the current state")
            }
        }
    }

    /// Publishes an ephemeral message of this node's to every other node serving `room`, in call order.
    /// Best effort, like signals on one node: a failure loses the message and is logged.
    func publish(room: String, payload: [UInt8]) {
        let signal = RoomSignal(node: settings.nodeID, payload: payload)
        links.link(for: room).signals.enqueue { [engine, logger] in
            do throws(RedisError) {
                try await engine.sequencer.publish(room: room, signal)
            } catch {
                logger.warning("cluster.signal_lost", LogField("room", room), LogField("error", error.description))
            }
        }
    }

    /// The logged patches with rev > `after`, up to `through`, read from Redis (a resume older than this
    /// node's memory). Fails with `.roomReset` when the log no longer reaches back that far.
    func patches(room: String, after: Int64, through: Int64) async throws(ClusterError) -> [PatchEvent] {
        var events: [PatchEvent] = []
        var rev = after
        while rev < through {
            let batch: [SequencedPatch]
            do throws(RedisError) {
                batch = try await engine.sequencer.patches(room: room, after: rev, limit: Int(min(1_000, through - rev)))
            } catch {
                throw .redis(error)
            }
            guard batch.first?.rev == rev + 1 else { throw .roomReset(room, reason: "the log no longer holds rev \(rev + 1)") }
            for patch in batch where patch.rev <= through {
                do {
                    events.append(try patch.event())
                } catch {
                    throw .roomReset(room, reason: "rev \(patch.rev) in the log is unreadable (\(error))")
                }
                rev = patch.rev
            }
        }
        return events
    }

    /// What the engine reports for `room`, in rev order (see `ClusterRoomLink`): folds become the room's
    /// releases, a reset closes the room (after giving Redis this node's copy if Redis lost it), and the
    /// other nodes' signals reach this node's participants.
    func apply(_ event: ClusterRoomEvent, to room: any ReplicatedRoom) {
        switch event {
        case .folded(let patch, let event):
            do throws(RoomFoldFailure) {
                try room.fold(event, epoch: patch.epoch)
            } catch {
                reset(room, reason: error.description)
            }
        case .reset(let reason):
            reset(room, reason: reason)
        case .signal(let signal):
            guard signal.node != settings.nodeID, let decoded = try? ServerMessage.decode(signal.payload) else { return }
            room.relay(decoded)
        }
    }


    /// Stops following `room` on this node; a later load opens it again. Call it when the `Room` is
    /// unloaded, before a new load of the same room can be requested: the queue keeps that order.
    func release(_ room: String) {
        let link = links.link(for: room)
        link.queue.enqueue { [self] in
            // First, so the unloaded room does not take the engine's "closed" for a reset.
            link.detach()
            await engine.close(room: room)
            links.remove(link)
        }
    }

    /// Whether the Redis reached runs in cluster mode (`cluster_enabled` of `INFO cluster`), asked at
    /// start so that a wrong `--redis` fails at once, not at the first join. With a Redis Cluster
    /// deployment this reads the slot map first, which a server without cluster support refuses.
    func redisRunsCluster() async throws(ClusterError) -> Bool {
        do {
            let reply = try await sequencerClient.send(["INFO", "cluster"])
            return reply.string?.contains("cluster_enabled:1") == true
        } catch {
            throw .redis(error)
        }
    }

    /// Stops the follow and presence loops without waiting (a node that never served a room).
    func cancel() {
        followLoop.cancel()
        presenceLoop.cancel()
    }

    /// Fails room work that has not started, waits (at most `drainTimeout`) for the work that has, then stops
    /// the follow loop and closes the Redis connections. Why wait: a submission still running after the
    /// clients closed reconnects to Redis, and a process that exits meanwhile crashes in the Swift runtime
    /// (seen at the end of every benchmark run with a backlog of patches).
    func shutdown(drainTimeout: Duration = .seconds(5)) async {
        closing.store(true, ordering: .releasing)
        // A safety bound, not logic under test: the running submissions need the follow loop (still running)
        // and Redis, which answer in milliseconds.
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: drainTimeout)
        while links.pendingWork + engine.outstandingSubmissions > 0, clock.now < deadline {
            try? await clock.sleep(for: .milliseconds(5))
        }
        followLoop.cancel()
        presenceLoop.cancel()
        await followLoop.value
        await presenceLoop.value
        links.detachAll()
        await sequencerClient.close()
        await followerClient.close()
    }
}
