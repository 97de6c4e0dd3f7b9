import TandemSynchronization
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
/// Group commit: a room's submissions queue while a batch of it is at Redis; when the batch's reply
/// comes, everything queued meanwhile goes in the next batch, one script call (`RedisRoomSequencer.append`
/// with several entries). Each patch is checked against the replica plus this node's own appended but
/// not yet folded patches, those earlier in the batch included (the *speculative head*), and the batch
/// is appended after that head's rev, so a node that is the room's only writer sends one script call
/// per Redis round trip, whatever the patch rate, and never waits for the follower to bring its own
/// patches back. If another node got in between, Redis answers `behind` and the node falls back to the
/// folded replica; a patch whose outcome differs from the expected one stops the batch there, and the
/// rest go again.
actor ClusterRoomSync<Replica: ClusterReplica> {
    /// A patch waiting to be sequenced, and who hears the outcome.
    struct Submission: Sendable {
        var client: String
        var user: String
        var seq: Int64
        var ops: [UInt8]
        /// `ops` as the node received them, parsed (nil: the engine parses `ops`).
        var parsed: [PatchOp]? = nil
        var base: Int64?
        var ifRev: Int64?
        /// Called once, on the engine's executor, with the outcome (see `submit`).
        var completion: @Sendable (Result<ClusterSubmitOutcome, ClusterError>) -> Void
        /// How often its connection to Redis died with it in flight.
        var lostConnections = 0

        /// The author: exactly-once and rebasing count a client id within its user's.
        var author: Peer { Peer(user: user, client: client) }
    }

    private struct OpenRoom {
        /// Tells this opening of the room from a later one (a batch in flight when the room was reset).
        var generation: Int
        var epoch: String
        var rev: Int64
        var replica: Replica
        var listener: @Sendable (ClusterRoomEvent) -> Void
        /// Called when the replica reaches `rev` (nil), or with the reason the room was reset.
        var waiters: [(rev: Int64, resume: (ClusterError?) -> Void)] = []
        /// The replica with this node's appended but not yet folded patches applied, and the rev it is at.
        var speculative: (rev: Int64, replica: Replica)?

        /// What the next patch is checked against and appended after.
        var head: (rev: Int64, replica: Replica) { speculative ?? (rev, replica) }
        /// Submissions taken from the intake (or sent back by Redis) and not sent yet, in order.
        var queue: [Submission] = []
        /// This node's appended patches not folded yet, parsed, by rev: the fold of the confirmed replica
        /// and the room's fan-out take them from here rather than parsing the logged bytes again.
        var appendedEvents: [Int64: PatchEvent] = [:]
        /// Per author of this node that sends a `base`: what its next patch is rebased over.
        var rebases: [Peer: RebaseContext] = [:]
    }

    /// Submissions in call order per room, before the room's pump takes them, and which rooms have a pump.
    private struct Intake {
        var rooms: [String: [Submission]] = [:]
        var pumping: Set<String> = []
        var outstanding = 0
    }

    /// The most patches and bytes of ops one script call carries.
    static var maxBatchCount: Int { 256 }
    static var maxBatchBytes: Int { 1 << 20 }

    /// Sequences, reads and stores snapshots (the node's shared, pipelined client).
    let sequencer: RedisRoomSequencer
    /// A snapshot is stored in Redis whenever a folded rev is a multiple of this.
    let snapshotInterval: Int64
    /// Submissions that found another node had appended first (`behind`) and had to catch up and
    /// re-check: a measure of cross-node contention on the same rooms.
    private(set) var contentionRetries = 0
    private var follower: RoomLogFollower?
    private var rooms: [String: OpenRoom] = [:]
    private var generations = 0
    private let wakeFollower: @Sendable () -> Void
    private nonisolated let intake = Locked(Intake())
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
        wakeFollower = follower.wake
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
            generations += 1
            rooms[room] = OpenRoom(generation: generations, epoch: head.epoch, rev: rev, replica: replica, listener: listener)
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
        let result = await withCheckedContinuation { continuation in
            enqueue(room: room, Submission(client: client, user: user, seq: seq, ops: ops, base: base, ifRev: ifRev) { continuation.resume(returning: $0) })
        }
        return try result.get()
    }

    /// Queues `submission` for `room` without waiting: submissions of one room are sequenced in the order
    /// of these calls (so a client's seqs reach Redis in order), in batches. `.applied` is reported as
    /// soon as Redis appended the patch (the fold that follows releases it); `.duplicate` and
    /// `.rejected` only once every patch this node appended to the room before it has been folded.
    nonisolated func enqueue(room: String, _ submission: Submission) {
        var submission = submission
        let completion = submission.completion
        submission.completion = { [self] result in
            intake.withLock { $0.outstanding -= 1 }
            completion(result)
        }
        let start = intake.withLock { state in
            state.outstanding += 1
            state.rooms[room, default: []].append(submission)
            return state.pumping.insert(room).inserted
        }
        if start { Task { await self.pump(room) } }
    }

    /// Submissions queued or in flight, over all rooms.
    nonisolated var outstandingSubmissions: Int { intake.withLock { $0.outstanding } }

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
                follower.settle()
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
        follower.close()
        self.follower = follower
    }

    private func wakeFollowLoop() {
        idle?.resume()
        idle = nil
        wakeFollower()
    }

    // MARK: - Internals

    /// Sequences `room`'s submissions, batch after batch, until none are left; one pump per room at a time.
    private func pump(_ room: String) async {
        while true {
            let queued = !(rooms[room]?.queue.isEmpty ?? true)
            let arrived = intake.withLock { state in
                let items = state.rooms.removeValue(forKey: room) ?? []
                if items.isEmpty, !queued { state.pumping.remove(room) }
                return items
            }
            guard rooms[room] != nil else {
                for submission in arrived { submission.completion(.failure(.roomNotOpen(room))) }
                if arrived.isEmpty { return }
                continue
            }
            rooms[room]?.queue += arrived
            guard let next = rooms[room]?.queue.first else { return }
            if next.ifRev != nil {
                rooms[room]?.queue.removeFirst()
                let outcome: Result<ClusterSubmitOutcome, ClusterError>
                do {
                    outcome = .success(try await processConditional(room: room, next))
                } catch let error as ClusterError {
                    outcome = .failure(error)
                } catch {
                    outcome = .failure(.roomReset(room, reason: "\(error)"))
                }
                next.completion(outcome)
            } else {
                await sequenceBatch(room)
            }
        }
    }

    /// Sends the longest run of queued submissions without an `ifRev` (bounded) in one script call and
    /// settles each by its outcome; those Redis did not look at go back to the front of the queue.
    private func sequenceBatch(_ room: String) async {
        // While the node's calls are paced, the batch is taken when its call may start: what reaches the
        // room until then goes in it, one log entry rather than two.
        let admitted = await sequencer.turn()
        takeArrived(room)
        // Nothing of the room's state is held across the call: the fold of the confirmed replica that
        // runs meanwhile then changes its only copy in place.
        guard let checked = checkBatch(room) else {
            if admitted { sequencer.withdraw() }
            return
        }
        let batch = checked.batch
        let outcomes: [SequencerOutcome]
        do {
            outcomes = try await sequencer.append(room: room, checked.entries, baseRev: checked.anyState ? nil : checked.headRev, validated: true,
                                                 head: (checked.epoch, checked.headRev), admitted: admitted)
        } catch {
            guard rooms[room]?.generation == checked.generation else {
                for submission in batch { submission.completion(.failure(.roomReset(room, reason: "the room was reset on this node"))) }
                return
            }
            var retry: [Submission] = []
            for var submission in batch {
                // It may have been appended: the same seq again is answered `duplicate` then.
                if case .connectionLost = error, submission.seq != 0, submission.lostConnections < 5 {
                    submission.lostConnections += 1
                    retry.append(submission)
                } else {
                    submission.completion(.failure(.redis(error)))
                }
            }
            rooms[room]?.queue.insert(contentsOf: retry, at: 0)
            return
        }
        settle(checked, outcomes: outcomes, room: room)
        if let rev = outcomes.lazy.compactMap({ if case .behind(_, let rev) = $0 { rev } else { nil } }).first {
            // Another node appended first: wait until this node has folded what it did, then check again.
            try? await waitUntil(room: room, reaches: rev)
        }
    }

    /// Moves the submissions that reached an open room's intake behind its queue (its pump goes on).
    private func takeArrived(_ room: String) {
        guard rooms[room] != nil else { return }
        let arrived = intake.withLock { $0.rooms.removeValue(forKey: room) ?? [] }
        rooms[room]?.queue += arrived
    }

    /// A batch taken from a room's queue and checked against its head, ready for Redis.
    private struct CheckedBatch {
        var batch: [Submission]
        var entries: [SequencerEntry]
        var contexts: [RebaseContext?]
        /// Each entry's ops parsed, where the node received them parsed.
        var parsed: [[PatchOp]?]
        /// The head with the batch's valid entries folded at the revs they were checked for.
        var replica: Replica
        var headRev: Int64
        /// The rev the head reaches when Redis appends the batch's valid entries right after `headRev`.
        var expectedRev: Int64
        /// Every entry is valid on any state of the document (`appliesToAnyState`): Redis appends the
        /// batch without checking the rev it was checked at, so another node's patches in between do
        /// not send it back (`behind`).
        var anyState: Bool
        var generation: Int
        var epoch: String
        /// The newest rev this node had appended and not folded when the batch was taken.
        var appendedBefore: Int64
    }

    /// Whether `ops` apply to every state of a document, whatever other patches did before them: `set`
    /// and `remove` of a member of the root (an object; a missing member's remove is a no-op). Only
    /// the document's size limit depends on the state; a node checks it against its head, so patches
    /// appended concurrently by several nodes may together exceed it by what they add.
    static func appliesToAnyState(_ ops: [PatchOp]) -> Bool {
        ops.allSatisfy { op in
            switch op {
            case .set(let path, _), .remove(let path): path.tokens.count == 1
            default: false
            }
        }
    }

    /// Takes the longest run of queued submissions without an `ifRev` (bounded) off `room`'s queue and
    /// checks each against the head with the batch's earlier (valid) patches applied; nil when the room
    /// is not open or that run is empty.
    private func checkBatch(_ room: String) -> CheckedBatch? {
        guard rooms[room] != nil else { return nil }
        var count = 0, bytes = 0
        for submission in rooms[room]!.queue.prefix(Self.maxBatchCount) {
            guard submission.ifRev == nil, count == 0 || bytes + submission.ops.count <= Self.maxBatchBytes else { break }
            count += 1
            bytes += submission.ops.count
        }
        // A room reset and opened again while it waited for its turn may have nothing (or a conditional
        // submission) at the front: the pump takes it from there.
        guard count > 0 else { return nil }
        let batch = Array(rooms[room]!.queue.prefix(count))
        // In place: a copy of the room would make this mutation copy the whole queue, element by element.
        rooms[room]!.queue.removeFirst(count)
        guard let open = rooms[room] else { return nil }

        let head = open.head
        var replica = head.replica, rev = head.rev
        var rebases = open.rebases
        var entries: [SequencerEntry] = [], contexts: [RebaseContext?] = [], parsed: [[PatchOp]?] = []
        var anyState = true
        entries.reserveCapacity(count)
        parsed.reserveCapacity(count)
        for submission in batch {
            var ops = submission.ops, refusal: String?
            var context = rebases[submission.author]
            if let base = submission.base {
                do throws(PatchError) {
                    (ops, context) = try replica.rebase(submission.ops, base: base, latest: rev, author: submission.author, context: context)
                } catch {
                    refusal = ClusterRejection.encode(error)
                }
            }
            // A rebase that changed the ops made new bytes: those are parsed again.
            let opsParsed = ops == submission.ops ? submission.parsed : nil
            if refusal == nil {
                refusal = replica.foldIfValid(SequencedPatch(epoch: open.epoch, rev: rev + 1, user: submission.user, client: submission.client,
                                                             seq: submission.seq, ops: ops), parsed: opsParsed)
                if refusal == nil { rev += 1 }
            }
            rebases[submission.author] = context
            contexts.append(context)
            parsed.append(opsParsed)
            anyState = anyState && refusal == nil && opsParsed.map(Self.appliesToAnyState) == true
            entries.append(SequencerEntry(client: submission.client, user: submission.user, seq: submission.seq, ops: ops, localRejection: refusal))
        }

        return CheckedBatch(batch: batch, entries: entries, contexts: contexts, parsed: parsed, replica: replica, headRev: head.rev,
                            expectedRev: rev, anyState: anyState,
                            generation: open.generation, epoch: open.epoch, appendedBefore: open.speculative?.rev ?? 0)
    }

    /// Hands each submission of a batch its outcome, or puts it back in the queue (`behind`, `skipped`).
    private func settle(_ checked: CheckedBatch, outcomes: [SequencerOutcome], room: String) {
        let batch = checked.batch, entries = checked.entries
        let epoch = outcomes.lazy.compactMap(\.epoch).first
        guard let current = rooms[room], current.generation == checked.generation, epoch == nil || epoch == checked.epoch,
              !outcomes.contains(.lost) else {
            if rooms[room]?.generation == checked.generation {
                reset(room, reason: outcomes.contains(.lost) ? "Redis lost the room" : "the room's epoch changed in Redis")
            }
            for (submission, outcome) in zip(batch, outcomes) {
                if case .applied(_, let rev, _) = outcome {
                    submission.completion(.failure(.appliedThenReset(room, rev: rev)))
                } else {
                    submission.completion(.failure(.roomReset(room, reason: outcome == .lost ? "Redis lost the room" : "the room's epoch changed in Redis")))
                }
            }
            return
        }
        // Revs this node appended before each answer: a duplicate or reject waits until they are folded.
        var appendedBefore = checked.appendedBefore
        var retry: [Submission] = []
        var expectedPrefix = 0
        var lastApplied: Int64?
        for (index, (submission, outcome)) in zip(batch, outcomes).enumerated() {
            let expected = entries[index].localRejection == nil ? "applied" : "rejected"
            if retry.isEmpty, outcome.status == expected { expectedPrefix = index + 1 }
            switch outcome {
            case .applied(_, let rev, _):
                rooms[room]?.rebases[submission.author] = checked.contexts[index]
                // Kept for the fold only when it has not come yet (the change message may beat the reply).
                if let ops = checked.parsed[index], let folded = rooms[room]?.rev, rev > folded {
                    rooms[room]?.appendedEvents[rev] = PatchEvent(rev: rev, user: submission.user, client: submission.client, seq: submission.seq,
                                                                  ops: ops, encodedOps: entries[index].ops)
                }
                lastApplied = rev
                appendedBefore = rev
                submission.completion(.success(.applied(rev: rev)))
            case .rejected(_, let reason):
                rooms[room]?.rebases[submission.author] = checked.contexts[index]
                settle(submission, .rejected(reason: reason), room: room, after: appendedBefore)
            case .duplicate(_, let rev):
                settle(submission, .duplicate(rev: rev), room: room, after: max(rev, appendedBefore))
            case .behind:
                contentionRetries += 1
                retry.append(submission)
            case .skipped, .lost:
                retry.append(submission)
            }
        }
        // The checked replica is the room at `lastApplied` when Redis answered every entry as expected
        // (a batch of expected rejects leaves the head as it was). Otherwise the node stops speculating
        // until its replica has folded what it appended: the next batch is checked against that (Redis
        // answers `behind` until then).
        // A batch appended without the rev check may have landed after other nodes' patches: then the
        // checked replica lacks them.
        if expectedPrefix < entries.count || (lastApplied != nil && lastApplied != checked.expectedRev) {
            rooms[room]?.speculative = nil
        } else if let lastApplied {
            if let folded = rooms[room]?.rev, folded < lastApplied {
                rooms[room]?.speculative = (lastApplied, checked.replica)
            } else {
                rooms[room]?.speculative = nil
            }
        }
        rooms[room]?.queue.insert(contentsOf: retry, at: 0)
    }

    /// Completes `submission` with `outcome` once the replica has folded `rev`.
    private func settle(_ submission: Submission, _ outcome: ClusterSubmitOutcome, room: String, after rev: Int64) {
        guard let open = rooms[room], open.rev < rev else {
            submission.completion(.success(outcome))
            return
        }
        rooms[room]?.waiters.append((rev, { error in submission.completion(error.map { .failure($0) } ?? .success(outcome)) }))
    }

    /// A write that names the rev the room must be at (the HTTP API's `ifRev`), on its own.
    private func processConditional(room: String, _ submission: Submission) async throws -> ClusterSubmitOutcome {
        guard let ifRev = submission.ifRev else { throw ClusterError.roomNotOpen(room) }
        var lostConnections = 0
        while true {
            guard let open = rooms[room] else { throw ClusterError.roomNotOpen(room) }
            let head = open.head
            if head.rev != ifRev {
                if head.rev > ifRev { return .conflict(rev: head.rev) }
                // This node may only be behind: Redis says whether the room is at that rev.
                guard let current = try await sequencer.head(room: room), current.epoch == open.epoch else {
                    throw ClusterError.roomReset(room, reason: "the room's epoch changed in Redis")
                }
                guard current.rev == ifRev else { return .conflict(rev: current.rev) }
                try await waitUntil(room: room, reaches: ifRev)
                continue
            }
            let ops = submission.ops
            let outcome: SequencerOutcome
            do {
                outcome = try await sequencer.append(room: room, client: submission.client, user: submission.user, seq: submission.seq, ops: ops,
                                                     baseRev: head.rev, localRejection: head.replica.rejection(of: ops))
            } catch {
                guard case .connectionLost = error, lostConnections < 5, submission.seq != 0 else { throw ClusterError.redis(error) }
                lostConnections += 1
                continue
            }
            switch outcome {
            case .applied(let epoch, let rev, let usedSeq):
                guard epoch == open.epoch, rooms[room]?.generation == open.generation else {
                    reset(room, reason: "the room's epoch changed in Redis")
                    throw ClusterError.appliedThenReset(room, rev: rev)
                }
                var next = head.replica
                if (try? next.fold(SequencedPatch(epoch: epoch, rev: rev, user: submission.user, client: submission.client, seq: usedSeq, ops: ops))) != nil,
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
                guard epoch == open.epoch else {
                    reset(room, reason: "the room's epoch changed in Redis")
                    throw ClusterError.roomReset(room, reason: "the room's epoch changed in Redis")
                }
                return .conflict(rev: rev)
            case .rejected(_, let reason):
                try await waitUntil(room: room, reaches: open.speculative?.rev ?? 0)
                return .rejected(reason: reason)
            case .lost, .skipped:
                reset(room, reason: "Redis lost the room")
                throw ClusterError.roomReset(room, reason: "Redis lost the room")
            }
        }
    }

    private func waitUntil(room: String, reaches rev: Int64) async throws {
        guard let open = rooms[room] else { throw ClusterError.roomNotOpen(room) }
        guard open.rev < rev else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            rooms[room]?.waiters.append((rev, { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }))
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
            // Out of the dictionary while it folds, so that the replica is changed in place, not copied.
            guard var open = rooms.removeValue(forKey: room) else { return }
            let before = open.rev
            for patch in patches where patch.rev == open.rev + 1 {
                let event: PatchEvent
                do {
                    if let appended = open.appendedEvents.removeValue(forKey: patch.rev), appended.client == patch.client, appended.user == patch.user, appended.seq == patch.seq {
                        event = appended
                    } else {
                        event = try patch.event()
                    }
                    try open.replica.fold(patch, event: event)
                } catch {
                    rooms[room] = open
                    reset(room, reason: "rev \(patch.rev) did not apply on this node (\(error))")
                    return
                }
                open.rev = patch.rev
                if let speculative = open.speculative, speculative.rev <= open.rev { open.speculative = nil }
                open.listener(.folded(patch, event: event))
            }
            // At the end of the batch that reached a multiple of the interval: a log entry ends there, so
            // a time-based trim can cut the log right after it.
            if open.rev / snapshotInterval > before / snapshotInterval {
                storeSnapshot(room: room, epoch: open.epoch, rev: open.rev, state: open.replica.state)
            }
            let ready = open.waiters.filter { $0.rev <= open.rev }
            open.waiters.removeAll { $0.rev <= open.rev }
            rooms[room] = open
            for waiter in ready { waiter.resume(nil) }
        }
    }

    private func reset(_ room: String, reason: String) {
        guard let open = rooms.removeValue(forKey: room) else { return }
        followChanges[room] = .some(nil)
        wakeFollower()
        open.listener(.reset(reason: reason))
        for waiter in open.waiters { waiter.resume(.roomReset(room, reason: reason)) }
        for submission in open.queue { submission.completion(.failure(.roomReset(room, reason: reason))) }
    }

    /// Any node may store it; the compare-and-set keeps the newest of the current epoch. Best effort:
    /// a failure only means loading replays more of the log.
    private func storeSnapshot(room: String, epoch: String, rev: Int64, state: [UInt8]) {
        let sequencer = sequencer
        Task { try? await sequencer.storeSnapshot(room: room, RoomSnapshot(epoch: epoch, rev: rev, state: state)) }
    }
}
