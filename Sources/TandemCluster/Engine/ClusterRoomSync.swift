import TandemProtocol
import TandemRedis
import TandemServer

/// One node's engine for the rooms it serves in cluster mode: loads each room's replica from Redis,
/// sequences local patches through the room sequencer, and folds the room logs (its own patches and
/// every other node's) into the replicas in rev order.
///
/// Guarantees: every folded rev is reported to the room's listener in rev order, which is where the
/// node releases patch events and acks (so an author never sees a later patch before its ack); a
/// submission answered `.duplicate` or `.rejected` returns only after every patch this node appended
/// to the room before it has been folded and reported, so such an answer cannot overtake an ack;
/// submissions of one room are processed one at a time, so a client's seqs reach Redis in order; a
/// patch is appended only if it was valid against the document at the rev it is appended after
/// (compare-and-append, re-checked after catching up when another node got in first); a submission
/// whose connection to Redis died is resubmitted with the same seq, which exactly-once makes safe.
/// `run()` must be running for submissions to complete.
///
/// Pipelining: `.applied` returns as soon as Redis appended the patch, before the follower brings it
/// back. The next submission is then checked against the replica plus this node's own patches not
/// folded yet (the *speculative head*) and appended with that head's rev as its base, so a node that
/// is the room's only writer sends one patch per Redis round trip instead of one per round trip plus
/// follower delay. If another node got in between, Redis answers `behind` and the node falls back to
/// the folded replica.
actor ClusterRoomSync<Replica: ClusterReplica> {
    private struct OpenRoom {
        var epoch: String
        var rev: Int64
        var replica: Replica
        var listener: @Sendable (ClusterRoomEvent) -> Void
        var waiters: [(rev: Int64, continuation: CheckedContinuation<Void, any Error>)] = []
        /// The replica with this node's appended but not yet folded patches applied, and the rev it is at.
        var speculative: (rev: Int64, replica: Replica)?

        /// What the next patch is checked against and appended after.
        var head: (rev: Int64, replica: Replica) { speculative ?? (rev, replica) }
        /// The last submission's task: the next one starts after it.
        var tail: Task<Void, Never>?
        /// Per client of this node that sends a `base`: what its next patch is rebased over.
        var rebases: [String: RebaseContext] = [:]
    }

    /// Sequences, reads and stores snapshots (the node's shared, pipelined client).
    let sequencer: RedisRoomSequencer
    /// A snapshot is stored in Redis whenever a folded rev is a multiple of this.
    let snapshotInterval: Int64
    /// Submissions that found another node had appended first (`behind`) and had to catch up and
    /// re-check: a measure of cross-node contention on the same rooms.
    private(set) var contentionRetries = 0
    private var follower: RoomLogFollower?
    private var rooms: [String: OpenRoom] = [:]
    private var followChanges: [String: RoomHead?] = [:]
    /// The follow loop, parked while there is no room to follow.
    private var idle: CheckedContinuation<Void, Never>?
    private let clock: any Clock<Duration>
    private let retryDelay: Duration
    private let makeReplica: @Sendable (RoomSnapshot?) throws -> Replica

    /// An engine over `sequencer`, following logs with `follower` (whose client must be its own).
    /// - Parameters:
    ///   - clock: what the follow loop waits on after a failed read.
    ///   - retryDelay: how long it waits then (the client's own reconnect backoff comes on top).
    ///   - makeReplica: builds a room's replica from its stored snapshot (for replicas that need settings).
    init(sequencer: RedisRoomSequencer, follower: RoomLogFollower, snapshotInterval: Int64 = 1_000,
                clock: any Clock<Duration> = ContinuousClock(), retryDelay: Duration = .milliseconds(100),
                makeReplica: @escaping @Sendable (RoomSnapshot?) throws -> Replica = { try Replica(snapshot: $0) }) {
        self.makeReplica = makeReplica
        self.sequencer = sequencer
        self.follower = follower
        self.snapshotInterval = snapshotInterval
        self.clock = clock
        self.retryDelay = retryDelay
    }

    /// Loads `room` (snapshot plus the log after it) unless it is open already, and starts following it.
    /// - Parameter listener: told of every rev folded after the returned one and of a reset, in order,
    ///   on the engine's executor (keep it short: queue sends, do not wait). Only the listener of the
    ///   call that loads the room is kept.
    /// - Throws: `ClusterError`.
    @discardableResult
    func open(room: String, listener: @escaping @Sendable (ClusterRoomEvent) -> Void = { _ in }) async throws(ClusterError) -> RoomHead {
        if let open = rooms[room] { return RoomHead(epoch: open.epoch, rev: open.rev, created: false) }
        do {
            let head = try await sequencer.open(room: room)
            let snapshot = try await sequencer.snapshot(room: room).flatMap { $0.rev <= head.rev ? $0 : nil }
            var replica: Replica
            do {
                replica = try makeReplica(snapshot)
            } catch {
                throw ClusterError.unreadableSnapshot(room: room, reason: "\(error)")
            }
            var rev = snapshot?.rev ?? 0
            while rev < head.rev {
                let batch = try await sequencer.patches(room: room, after: rev, limit: 1_000)
                guard batch.first?.rev == rev + 1 else { throw ClusterError.roomReset(room, reason: "the log no longer reaches back to the snapshot") }
                for patch in batch where patch.rev <= head.rev {
                    try replica.fold(patch)
                    rev = patch.rev
                }
            }
            // Another open of the same room may have finished while this one awaited.
            if let open = rooms[room] { return RoomHead(epoch: open.epoch, rev: open.rev, created: false) }
            rooms[room] = OpenRoom(epoch: head.epoch, rev: rev, replica: replica, listener: listener)
            followChanges[room] = RoomHead(epoch: head.epoch, rev: rev, created: false)
            wakeFollowLoop()
            return RoomHead(epoch: head.epoch, rev: rev, created: head.created, rotated: head.rotated)
        } catch let error as ClusterError {
            throw error
        } catch let error as RedisError {
            throw .redis(error)
        } catch {
            throw .roomReset(room, reason: "\(error)")
        }
    }

    /// Stops serving `room` on this node.
    func close(room: String) {
        reset(room, reason: "closed on this node")
    }

    /// The room's epoch, rev and replica as this node holds them.
    func state(of room: String) -> (epoch: String, rev: Int64, replica: Replica)? {
        rooms[room].map { ($0.epoch, $0.rev, $0.replica) }
    }

    /// Sequences one patch of `client` and returns once this node's replica reflects the outcome. A
    /// `base` behind the rev it is appended after rebases the ops over the other clients' array edits
    /// since (again after catching up, when another node got in first). Seq 0 lets Redis give the patch
    /// the client's next seq (a write nothing resends: it is not retried when the connection to Redis
    /// dies in flight). `ifRev`: applied only while the room is at that rev, else `.conflict`.
    /// - Throws: `ClusterError` (`.roomReset` when the room's history broke meanwhile).
    func submit(room: String, client: String, user: String, seq: Int64, ops: [UInt8], base: Int64? = nil,
                ifRev: Int64? = nil) async throws(ClusterError) -> ClusterSubmitOutcome {
        guard var open = rooms[room] else { throw .roomNotOpen(room) }
        let previous = open.tail
        let work = Task { () async throws -> ClusterSubmitOutcome in
            await previous?.value
            return try await self.process(room: room, client: client, user: user, seq: seq, submitted: ops, base: base, ifRev: ifRev)
        }
        open.tail = Task { _ = await work.result }
        rooms[room] = open
        do {
            return try await work.value
        } catch let error as ClusterError {
            throw error
        } catch {
            throw .roomReset(room, reason: "\(error)")
        }
    }

    /// Follows the logs of the open rooms until the task is cancelled: one blocking read at a time,
    /// folding what arrives. Redis failures are retried (the client reconnects with backoff). Run it
    /// once per engine; a second call while one runs returns at once.
    func run() async {
        guard var follower else { return }
        self.follower = nil
        while !Task.isCancelled {
            for (room, head) in followChanges {
                if let head { follower.follow(room: room, epoch: head.epoch, after: head.rev) } else { follower.unfollow(room: room) }
            }
            followChanges = [:]
            if follower.positions.isEmpty {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { idle = $0 }
                } onCancel: {
                    Task { await self.wakeFollowLoop() }
                }
                continue
            }
            do {
                for event in try await follower.poll() { handle(event) }
            } catch {
                try? await clock.sleep(for: retryDelay)
            }
        }
        self.follower = follower
    }

    private func wakeFollowLoop() {
        idle?.resume()
        idle = nil
    }

    // MARK: - Internals

    private func process(room: String, client: String, user: String, seq: Int64, submitted: [UInt8], base: Int64?,
                         ifRev: Int64?) async throws -> ClusterSubmitOutcome {
        var lostConnections = 0
        // Each try rebases from what was submitted, with the context as it was before this patch.
        let context = rooms[room]?.rebases[client]
        while true {
            guard let open = rooms[room] else { throw ClusterError.roomNotOpen(room) }
            let head = open.head
            if let ifRev, head.rev != ifRev {
                if head.rev > ifRev { return .conflict(rev: head.rev) }
                // This node may only be behind: Redis says whether the room is at that rev.
                guard let current = try await sequencer.head(room: room), current.epoch == open.epoch else {
                    throw ClusterError.roomReset(room, reason: "the room's epoch changed in Redis")
                }
                guard current.rev == ifRev else { return .conflict(rev: current.rev) }
                try await waitUntil(room: room, reaches: ifRev)
                continue
            }
            var ops = submitted
            var nextContext: RebaseContext?
            if let base {
                do throws(PatchError) {
                    (ops, nextContext) = try head.replica.rebase(submitted, base: base, latest: head.rev, client: client, context: context)
                } catch {
                    try await waitUntil(room: room, reaches: open.speculative?.rev ?? 0)
                    return .rejected(reason: ClusterRejection.encode(error))
                }
            }
            let outcome: SequencerOutcome
            do {
                outcome = try await sequencer.append(room: room, client: client, user: user, seq: seq, ops: ops, baseRev: head.rev,
                                                     localRejection: head.replica.rejection(of: ops))
            } catch {
                guard case .connectionLost = error, lostConnections < 5, seq != 0 else { throw ClusterError.redis(error) }
                // It may have been appended: the same seq again is answered `duplicate` then.
                lostConnections += 1
                continue
            }
            // Kept also when the patch is refused, as the author's engine keeps it until the reject arrives.
            switch outcome {
            case .applied, .rejected: rooms[room]?.rebases[client] = nextContext
            case .duplicate, .behind, .lost: break
            }
            switch outcome {
            case .applied(let epoch, let rev, let usedSeq):
                guard epoch == open.epoch else {
                    reset(room, reason: "the room's epoch changed in Redis")
                    throw ClusterError.appliedThenReset(room, rev: rev)
                }
                // The base check means rev = head.rev + 1: the head plus this patch is the room at rev.
                var next = head.replica
                if (try? next.fold(SequencedPatch(epoch: epoch, rev: rev, user: user, client: client, seq: usedSeq, ops: ops))) != nil,
                   let folded = rooms[room]?.rev, folded < rev {
                    rooms[room]?.speculative = (rev, next)
                } else {
                    rooms[room]?.speculative = nil
                }
                return .applied(rev: rev)
            case .duplicate(_, let rev):
                try await waitUntil(room: room, reaches: max(rev, open.speculative?.rev ?? 0))
                return .duplicate(rev: rev)
            case .behind(let epoch, let rev):
                try requireEpoch(epoch, of: room, open: open)
                if ifRev != nil { return .conflict(rev: rev) }
                contentionRetries += 1
                rooms[room]?.speculative = nil
                try await waitUntil(room: room, reaches: rev)
            case .rejected(_, let reason):
                try await waitUntil(room: room, reaches: open.speculative?.rev ?? 0)
                return .rejected(reason: reason)
            case .lost:
                reset(room, reason: "Redis lost the room")
                throw ClusterError.roomReset(room, reason: "Redis lost the room")
            }
        }
    }

    private func requireEpoch(_ epoch: String, of room: String, open: OpenRoom) throws {
        guard epoch == open.epoch else {
            reset(room, reason: "the room's epoch changed in Redis")
            throw ClusterError.roomReset(room, reason: "the room's epoch changed in Redis")
        }
    }

    private func waitUntil(room: String, reaches rev: Int64) async throws {
        guard let open = rooms[room] else { throw ClusterError.roomNotOpen(room) }
        guard open.rev < rev else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            rooms[room]?.waiters.append((rev, continuation))
        }
    }

    private func handle(_ event: RoomLogEvent) {
        switch event {
        case .reset(let room, _, let reason):
            reset(room, reason: reason == .epochChanged ? "the room's epoch changed in Redis" : "this node fell behind the log")
        case .signals(let room, let signals):
            guard let open = rooms[room] else { return }
            for signal in signals { open.listener(.signal(signal)) }
        case .patches(let room, let patches):
            guard var open = rooms[room] else { return }
            for patch in patches where patch.rev == open.rev + 1 {
                do {
                    try open.replica.fold(patch)
                } catch {
                    reset(room, reason: "rev \(patch.rev) did not apply on this node (\(error))")
                    return
                }
                open.rev = patch.rev
                if let speculative = open.speculative, speculative.rev <= open.rev { open.speculative = nil }
                open.listener(.folded(patch))
                if open.rev % snapshotInterval == 0 { storeSnapshot(room: room, epoch: open.epoch, rev: open.rev, state: open.replica.state) }
            }
            let ready = open.waiters.filter { $0.rev <= open.rev }
            open.waiters.removeAll { $0.rev <= open.rev }
            rooms[room] = open
            for waiter in ready { waiter.continuation.resume() }
        }
    }

    private func reset(_ room: String, reason: String) {
        guard let open = rooms.removeValue(forKey: room) else { return }
        followChanges[room] = .some(nil)
        open.listener(.reset(reason: reason))
        for waiter in open.waiters { waiter.continuation.resume(throwing: ClusterError.roomReset(room, reason: reason)) }
    }

    /// Any node may store it; the compare-and-set keeps the newest of the current epoch. Best effort:
    /// a failure only means loading replays more of the log.
    private func storeSnapshot(room: String, epoch: String, rev: Int64, state: [UInt8]) {
        let sequencer = sequencer
        Task { try? await sequencer.storeSnapshot(room: room, RoomSnapshot(epoch: epoch, rev: rev, state: state)) }
    }
}
