import TandemProtocol

/// The pure heart of a Tandem client: the confirmed document in server order, the outbox of
/// local patches, and the visible document the app renders.
///
/// Rules (the contract the property tests check):
/// - `confirmed` changes only through the server, in rev order (`welcome`, `patch` events, acks).
/// - `visible` is `confirmed` with every pending patch replayed on top, in order. A pending patch
///   that no longer applies after a remote change is left out of `visible` but still sent: the
///   server decides, and its `ack` or `reject` settles it.
/// - Each remote change rebases the pending patches over its array edits (`PatchRebase`), oldest
///   first, so a pending "remove the item at 3" still names the item its author saw; each patch
///   goes out with the rev it was made on as `base`, and the server rebases it the same way over
///   what it applied meanwhile. An ack carrying ops (a rebased patch) gives `confirmed` those ops.
/// - Seq numbers are assigned when a patch is first sent, strictly increasing, and survive
///   reconnects together with the client id; a resent patch keeps its seq.
/// - After all messages are delivered and the outbox is drained, `confirmed == visible ==` the
///   server's document.
///
/// A value type with no clock or I/O of its own: the networked session feeds it the messages of
/// the current connection only (none of a connection after `connectionLost()`), the current time
/// (nanoseconds of any monotonic clock), and sends what `nextOutgoing(now:)` returns.
public struct SyncEngine: Sendable {
    /// The client id this engine writes as (stable across reconnects).
    public let clientID: String
    /// Flow-control settings.
    public let configuration: SyncEngineConfiguration
    /// The paths whose changes are paced newest-wins: the configuration's, and those declared since.
    public private(set) var highRatePaths: Set<JSONPointer>
    /// The server's document as of `rev`.
    public private(set) var confirmed: Document
    /// `confirmed` with the pending patches replayed on top: what the app shows.
    public private(set) var visible: Document
    /// The room's epoch, `nil` before the first `welcome`.
    public private(set) var epoch: String?
    /// The rev of `confirmed`.
    public private(set) var rev: Int64
    /// Local patches not confirmed yet, oldest first (seq order for those that have a seq).
    public private(set) var pending: [PendingPatch]
    /// The seq the next newly sent patch gets.
    public private(set) var nextSeq: Int64
    /// Whether a session is established (between `welcome` and `connectionLost()`).
    public private(set) var isConnected: Bool
    /// The user the server recognised this engine's connection as (`welcome.you.user`), nil before the
    /// first welcome. A patch event is this engine's own only when its user and client id are both this
    /// engine's: another user may name the same client id.
    public private(set) var user: String?
    /// The role the server announced, `nil` before the first `welcome`.
    public private(set) var role: Role?
    /// The limits the server announced, defaults before the first `welcome`.
    public private(set) var limits: SessionLimits
    /// Round trips of this engine's patches, from send to answer (`receive(_:now:)`): what the spacing
    /// of high-rate values follows.
    public private(set) var patchRoundTrip = RTTEstimator()

    private var needsSnapshot = false
    /// Rate and burst the outbox paces at on this connection; `nil` when unlimited.
    private var pacing: (rate: Double, burst: Double)?
    /// Created at the first send of a connection: the server's bucket starts full, so does this one.
    private var pacer: TokenBucket?
    private var lastHighRateSend: [JSONPointer: Int64] = [:]
    /// One frame of a 120 Hz display, nanoseconds: values of a high-rate path go no more often than the
    /// fastest screens show them (a 60 Hz source's values, arriving a little early or late, all go).
    private static let displayFrame: Int64 = 8_333_333

    /// Creates an engine for `clientID` with an empty document.
    public init(clientID: String, configuration: SyncEngineConfiguration = SyncEngineConfiguration()) {
        self.clientID = clientID
        self.configuration = configuration
        highRatePaths = configuration.highRatePaths
        confirmed = Document()
        visible = Document()
        rev = 0
        pending = []
        nextSeq = 1
        isConnected = false
        limits = SessionLimits()
    }

    /// Restores an engine from a saved state: the confirmed document at its rev, the pending patches
    /// (all unsent, seqs kept) replayed on top into `visible`, and the next seq. Not connected.
    public init(restoring saved: SyncSavedState, configuration: SyncEngineConfiguration = SyncEngineConfiguration()) {
        self.init(clientID: saved.clientID, configuration: configuration)
        confirmed = Document(saved.confirmed) ?? Document()
        epoch = saved.epoch
        rev = saved.rev
        // Saved patches are on the saved state (a base of 0 was saved without one).
        pending = saved.pending.map { PendingPatch(seq: $0.seq, ops: $0.ops, stage: .unsent, base: $0.base > 0 ? min($0.base, saved.rev) : saved.rev) }
        nextSeq = max(1, saved.nextSeq)
        needsSnapshot = saved.needsSnapshot
        var ignored: [EngineEvent] = []
        recomputeVisible(before: visible, into: &ignored)
    }

    /// What a `SyncPersistence` keeps of this engine.
    public var savedState: SyncSavedState {
        SyncSavedState(clientID: clientID, nextSeq: nextSeq, epoch: epoch, rev: rev, confirmed: confirmed.root, pending: pending,
                       needsSnapshot: needsSnapshot)
    }

    /// Where the next `hello` resumes from; `nil` (ask for the full state) before the first
    /// `welcome` or after the engine lost track of the history.
    public var resume: ResumePoint? {
        guard let epoch, !needsSnapshot else { return nil }
        return ResumePoint(epoch: epoch, rev: rev)
    }

    /// Number of patches sent over the current connection and not yet answered.
    public var inFlightCount: Int { pending.count { $0.stage == .inFlight } }

    // MARK: - Local changes

    /// Applies a local change optimistically: it is visible at once and queued for sending.
    ///
    /// Coalescing (newest value wins): ops of patches that were never sent and that the new change
    /// supersedes (a `set` at or above their path; a `remove` only supersedes removes) are dropped,
    /// unless a kept patch in between touches their path; a patch left empty disappears. In-flight
    /// patches and patches with a seq are never changed. A change made only of ops within a
    /// high-rate path joins that path's unsent patch, so there is at most one per path. A burst of
    /// changes to one value therefore sends only the newest. The change must apply to `visible`,
    /// so a merge can only alter the outcome when a remote change in between makes it fail.
    ///
    /// Returns `false` when `ops` is empty (nothing queued).
    /// - Throws: `SyncEngineError` when the change does not apply to `visible` or the role may not patch.
    @discardableResult
    public mutating func localChange(_ ops: [PatchOp]) throws(SyncEngineError) -> Bool {
        guard !ops.isEmpty else { return false }
        if let role, !role.canPatch { throw .readOnly(role: role) }
        do {
            try visible.apply(ops, limits: limits.patchLimits)
        } catch {
            throw .invalidChange(error)
        }
        coalesce(into: ops)
        return true
    }

    /// Drops ops of mergeable pending patches that `ops` supersedes, merges high-rate changes into
    /// the single unsent value of their path, and appends the rest as a new pending patch.
    private mutating func coalesce(into ops: [PatchOp]) {
        // The ops that stay after a candidate (later in its own patch or in a later patch): an op that
        // interacts with one of them must stay too, or that op would see another state.
        var keptLater: [PatchOp] = []
        var index = pending.count - 1
        while index >= 0, pending[index].isMergeable, pending[index].base == rev {
            var kept: [PatchOp] = []
            for op in pending[index].ops.reversed() where !op.isDecided(by: ops) || keptLater.contains(where: op.interacts(with:)) {
                kept.append(op)
                keptLater.append(op)
            }
            kept.reverse()
            if kept.isEmpty {
                pending.remove(at: index)
            } else {
                pending[index].ops = kept
            }
            index -= 1
        }
        if let path = highRatePath(of: ops), let target = unsentValueIndex(of: path) {
            // Two unsent values of one high-rate path (say `/contentOffset/x` then `/contentOffset/y`)
            // become one patch: at most one unsent value per high-rate path.
            pending[target].ops.append(contentsOf: ops)
        } else {
            pending.append(PendingPatch(seq: nil, ops: ops, stage: .unsent, base: rev))
        }
    }

    /// The mergeable pending patch holding the unsent value of high-rate `path`, provided no later
    /// patch touches that path (merging moves the new value before those patches).
    private func unsentValueIndex(of path: JSONPointer) -> Int? {
        var index = pending.count - 1
        while index >= 0, pending[index].isMergeable, pending[index].base == rev {
            if highRatePath(of: pending[index].ops) == path { return index }
            if pending[index].ops.contains(where: { $0.interacts(with: .set(path, .null)) }) { return nil }
            index -= 1
        }
        return nil
    }

    /// Declares `path` high-rate (a scroll offset the app owns, wherever its state keeps it): a patch made
    /// only of ops at or below it is paced to `highRateInterval`, newest value winning, like the configured ones.
    public mutating func declareHighRate(_ path: JSONPointer) {
        highRatePaths.insert(path)
    }

    /// The high-rate path all `ops` lie within, if any.
    func highRatePath(of ops: [PatchOp]) -> JSONPointer? {
        guard let first = ops.first,
              let path = highRatePaths.first(where: { first.path.isWithin($0) }),
              ops.allSatisfy({ $0.path.isWithin(path) })
        else { return nil }
        return path
    }

    // MARK: - Server messages

    /// Processes one server message and reports what changed. Messages that do not concern the
    /// document (presence, signals, pongs, errors) return no events.
    public mutating func receive(_ message: ServerMessage) -> [EngineEvent] {
        receive(message, now: nil)
    }

    /// Processes one server message received at `now` (monotonic nanoseconds, the clock of
    /// `nextOutgoing(now:)`): an answer to a patch sent on this connection measures its round trip.
    public mutating func receive(_ message: ServerMessage, now: Int64?) -> [EngineEvent] {
        if let now { measureRoundTrip(of: message, now: now) }
        switch message {
        case .welcome(let welcome): return receiveWelcome(welcome)
        case .patch(let event):
            var events: [EngineEvent] = []
            let before = visible
            applyEvent(event, into: &events)
            recomputeVisible(before: before, into: &events)
            return events
        case .ack(let seq, let ackRev, let duplicate, let ops): return receiveAck(seq: seq, rev: ackRev, duplicate: duplicate, applied: ops)
        case .reject(let seq, let code, let message): return receiveReject(seq: seq, code: code, message: message)
        case .join, .presence, .leave, .signal, .pong, .error: return []
        }
    }

    /// Adds the round trip of the in-flight patch `message` answers (its ack, reject or own event).
    private mutating func measureRoundTrip(of message: ServerMessage, now: Int64) {
        let seq: Int64
        switch message {
        case .ack(let acked, _, _, _): seq = acked
        case .reject(let rejected, _, _): seq = rejected
        case .patch(let event) where event.client == clientID && event.user == user: seq = event.seq
        default: return
        }
        guard let sentAt = pending.first(where: { $0.seq == seq && $0.stage == .inFlight })?.sentAt else { return }
        patchRoundTrip.add(sample: Double(now - sentAt) / 1e9)
    }

    /// How far apart two values of one high-rate path are sent, nanoseconds: a quarter of the patches'
    /// smoothed round trip, at least a frame of a 120 Hz display and at most `highRateInterval` (which also holds
    /// before the first answer). On a fast link every frame's value goes out; on a slow one, where each
    /// message costs more of the link and a quarter round trip is small against the delay the link adds
    /// anyway, fewer go.
    public var highRateSpacing: Int64 {
        guard let smoothed = patchRoundTrip.smoothed else { return configuration.highRateInterval }
        return min(configuration.highRateInterval, max(Self.displayFrame, Int64(smoothed * 1e9 / 4)))
    }

    /// How many values of high-rate paths may be unanswered at once: those sent over two smoothed round
    /// trips at `highRateSpacing` (at least two), `maxInFlight` before the first answer. High-rate values
    /// do not count against `maxInFlight`, so a stream of offsets never holds back other changes, nor
    /// waits for them; this bound keeps a stalled link from collecting more stale offsets than a link
    /// that answers would carry.
    public var highRateWindow: Int {
        guard let smoothed = patchRoundTrip.smoothed else { return configuration.maxInFlight }
        return max(2, Int((2 * smoothed * 1e9 / Double(max(1, highRateSpacing))).rounded(.up)))
    }

    private mutating func receiveWelcome(_ welcome: Welcome) -> [EngineEvent] {
        let before = visible
        var events: [EngineEvent] = []
        role = welcome.you.role
        user = welcome.you.user
        limits = welcome.limits
        lastHighRateSend = [:]
        let snapshot: Bool
        switch welcome.sync {
        case .state(let state):
            snapshot = true
            confirmed = Document(state) ?? Document()
            epoch = welcome.epoch
            rev = welcome.rev
            needsSnapshot = false
        case .replay(let replay):
            snapshot = false
            for event in replay { applyEvent(event, into: &events) }
            if rev != welcome.rev {
                needsSnapshot = true
                events.append(.resyncNeeded(reason: "replay ended at rev \(rev), the server is at rev \(welcome.rev)"))
            }
        }
        // Patches at or below lastSeq are settled: the rest are resent in order with their seqs.
        // After a replay, one of them without its event in the replay was not applied (the server
        // refused it and the reject was lost with the connection; a later seq was applied):
        // everything after the resume rev is in the replay, and anything before it was settled
        // over an earlier connection. After a snapshot the two cannot be told apart; the patch
        // counts as applied (confirmed is the server's state either way).
        let settled = pending.filter { patch in
            guard let seq = patch.seq else { return false }
            return seq <= welcome.lastSeq
        }
        pending.removeAll { settled.contains($0) }
        if welcome.forgotten && snapshot {
            // The room forgot this client: a patch sent before may or may not have been applied, and the
            // snapshot cannot tell. Dropping it is the safe side: it is never applied twice. Never-sent
            // patches are unaffected.
            let unknown = pending.filter { $0.seq != nil }
            pending.removeAll { $0.seq != nil }
            for patch in unknown {
                events.append(.rejected(seq: patch.seq ?? 0, code: .progressExpired,
                                        message: "the server no longer remembers whether this change (sent before this connection) was applied; "
                                            + "it was dropped so that it cannot apply twice: check the state and make it again if it is missing",
                                        ops: patch.ops))
            }
        }
        if !snapshot {
            for patch in settled {
                events.append(.rejected(seq: patch.seq ?? 0, code: .other("not_applied"),
                                        message: "the server did not apply this change (its reject was lost with the connection)", ops: patch.ops))
            }
        }
        dropSupersededHighRateValues()
        for index in pending.indices {
            pending[index].stage = .unsent
            pending[index].sent = nil
            pending[index].sentAt = nil
            // A snapshot carries no edits to rebase over: the patches apply to the new state as they are.
            if snapshot { pending[index].base = rev }
        }
        nextSeq = max(nextSeq, welcome.lastSeq + 1)
        isConnected = true
        let rate = welcome.limits.rate * configuration.pacingShare
        pacing = rate > 0 ? (rate, max(1, (Double(welcome.limits.burst) * configuration.pacingShare).rounded(.down))) : nil
        pacer = nil
        events.insert(.synchronized(epoch: welcome.epoch, rev: rev, snapshot: snapshot), at: 0)
        recomputeVisible(before: before, into: &events)
        return events
    }

    /// Newest wins in flight too: of the values of one high-rate path that a lost connection left
    /// unanswered, only those a later value of the path does not decide are sent again (their seqs are
    /// skipped, which the server allows). A patch with other paths in between keeps its place.
    private mutating func dropSupersededHighRateValues() {
        var index = pending.count - 1
        var newer: [JSONPointer: [PatchOp]] = [:]
        while index >= 0 {
            let patch = pending[index]
            if let path = highRatePath(of: patch.ops) {
                if let later = newer[path], patch.seq != nil, patch.ops.allSatisfy({ $0.isDecided(by: later) }) {
                    pending.remove(at: index)
                } else {
                    newer[path] = patch.ops
                }
            } else {
                // A change in between that touches a high-rate path ends what a later value of it decides.
                for (path, _) in newer where patch.ops.contains(where: { $0.interacts(with: .set(path, .null)) }) { newer[path] = nil }
            }
            index -= 1
        }
    }

    /// Applies one `patch` event to `confirmed`; an event of this client for a pending seq is that
    /// patch's acknowledgement (it was sent over an earlier connection).
    private mutating func applyEvent(_ event: PatchEvent, into events: inout [EngineEvent]) {
        guard event.rev > rev else { return } // already part of confirmed
        guard event.rev == rev + 1 else {
            needsSnapshot = true
            events.append(.resyncNeeded(reason: "expected rev \(rev + 1), received rev \(event.rev)"))
            return
        }
        var edits: [ArrayEdit] = []
        do {
            try confirmed.apply(event.ops, limits: PatchLimits.unlimited, edits: &edits)
        } catch {
            needsSnapshot = true
            events.append(.resyncNeeded(reason: "rev \(event.rev) does not apply to the confirmed state: \(error)"))
            return
        }
        let previous = rev
        rev = event.rev
        if event.client == clientID, event.user == user, let index = pending.firstIndex(where: { $0.seq == event.seq }) {
            pending.remove(at: index)
            advanceBases(from: previous)
            events.append(.acknowledged(seq: event.seq, rev: event.rev))
        } else {
            rebasePending(over: edits, from: previous)
            events.append(.remoteChange(event))
        }
    }

    /// The patches made on rev `previous` with this client's own patch on top are, now that the patch
    /// is confirmed, made on the current rev.
    private mutating func advanceBases(from previous: Int64) {
        for index in pending.indices where pending[index].base == previous { pending[index].base = rev }
    }

    /// Rebases every pending patch made on rev `from` over a remote change's `edits`, oldest first,
    /// each over the edits as the ones before it rewrote them, exactly as the server rebases this
    /// client's patches. A patch whose rebase fails (a `test` of a removed element) keeps its ops
    /// and base: the server refuses it from there. A patch on an older base is left to the server.
    private mutating func rebasePending(over edits: [ArrayEdit], from previous: Int64) {
        var changes = [edits]
        for index in pending.indices where pending[index].base == previous {
            if !changes[0].isEmpty {
                guard let rebased = try? PatchRebase.rebase(pending[index].ops, over: &changes) else { continue }
                pending[index].ops = rebased
            }
            pending[index].base = rev
        }
    }

    /// `applied`: the ops the server applied, when it rebased them; else it applied what was sent.
    private mutating func receiveAck(seq: Int64, rev ackRev: Int64, duplicate: Bool, applied: [PatchOp]?) -> [EngineEvent] {
        guard let index = pending.firstIndex(where: { $0.seq == seq }) else { return [] } // settled already
        let patch = pending.remove(at: index)
        var events: [EngineEvent] = []
        let before = visible
        if duplicate && ackRev <= rev {
            // Applied earlier at a rev confirmed already holds.
        } else if ackRev == rev + 1 {
            do {
                try confirmed.apply(applied ?? patch.sent ?? patch.ops, limits: PatchLimits.unlimited)
                rev = ackRev
                advanceBases(from: ackRev - 1)
            } catch {
                needsSnapshot = true
                events.append(.resyncNeeded(reason: "acknowledged seq \(seq) does not apply to the confirmed state: \(error)"))
            }
        } else {
            needsSnapshot = true
            events.append(.resyncNeeded(reason: "ack of seq \(seq) at rev \(ackRev) while confirmed is at rev \(rev)"))
        }
        events.insert(.acknowledged(seq: seq, rev: ackRev), at: 0)
        recomputeVisible(before: before, into: &events)
        return events
    }

    private mutating func receiveReject(seq: Int64, code: RejectCode, message: String) -> [EngineEvent] {
        guard let index = pending.firstIndex(where: { $0.seq == seq }) else { return [] }
        let patch = pending.remove(at: index)
        let before = visible
        var events: [EngineEvent] = [.rejected(seq: seq, code: code, message: message, ops: patch.ops)]
        recomputeVisible(before: before, into: &events)
        return events
    }

    /// Rebase: `visible` = `confirmed` + pending patches that still apply, in order.
    private mutating func recomputeVisible(before: Document, into events: inout [EngineEvent]) {
        var rebuilt = confirmed
        // A patch left on an older base (its rebase failed) shows once the server has decided.
        for patch in pending where patch.base == rev {
            try? rebuilt.apply(patch.ops, limits: PatchLimits.unlimited)
        }
        visible = rebuilt
        if visible != before { events.append(.visibleChanged) }
    }

    // MARK: - Connection

    /// The connection is gone: every in-flight patch goes back to the outbox, keeping its seq,
    /// to be resent after the next `welcome` unless `lastSeq` shows it was applied.
    public mutating func connectionLost() {
        isConnected = false
        pacing = nil
        pacer = nil
        for index in pending.indices {
            pending[index].stage = .unsent
            pending[index].sent = nil
            pending[index].sentAt = nil
        }
    }

    // MARK: - Sending

    /// The patches to send now, in seq order, within flow control: at most `maxInFlight` other
    /// changes and `highRateWindow` high-rate values unanswered, paced at `pacingShare` of the
    /// announced rate and burst (none when the rate is 0), and a high-rate path at most every
    /// `highRateSpacing`. Marks them in flight.
    ///
    /// The outbox is sent strictly in order: a high-rate patch waiting for its interval holds back
    /// the patches made after it (for at most one interval), so seq order is the order of changes.
    /// - Parameter now: monotonic time in nanoseconds; must not go backwards within a connection.
    public mutating func nextOutgoing(now: Int64) -> [ClientMessage] {
        guard isConnected else { return [] }
        startPacer(now: now)
        var messages: [ClientMessage] = []
        var (inFlight, highRateInFlight) = inFlightCounts
        for index in pending.indices where pending[index].stage == .unsent {
            let highRate = highRatePath(of: pending[index].ops)
            guard highRate == nil ? inFlight < configuration.maxInFlight : highRateInFlight < highRateWindow else { break }
            if let highRate, let last = lastHighRateSend[highRate], now - last < highRateSpacing { break }
            if var bucket = pacer {
                guard bucket.take(now: now) else { break }
                pacer = bucket
            }
            if let highRate { lastHighRateSend[highRate] = now }
            let seq: Int64
            if let assigned = pending[index].seq {
                seq = assigned
            } else {
                seq = nextSeq
                nextSeq += 1
                pending[index].seq = seq
            }
            pending[index].stage = .inFlight
            pending[index].sent = pending[index].ops
            pending[index].sentAt = now
            if highRate == nil { inFlight += 1 } else { highRateInFlight += 1 }
            messages.append(.patch(seq: seq, ops: pending[index].ops, base: pending[index].base))
        }
        return messages
    }

    /// When `nextOutgoing(now:)` may return more, nanoseconds: `nil` when nothing waits or only
    /// an answer (ack) can unblock the outbox.
    public mutating func nextSendTime(now: Int64) -> Int64? {
        guard isConnected, let head = pending.first(where: { $0.stage == .unsent }) else { return nil }
        let (inFlight, highRateInFlight) = inFlightCounts
        guard highRatePath(of: head.ops) == nil ? inFlight < configuration.maxInFlight : highRateInFlight < highRateWindow else { return nil }
        startPacer(now: now)
        var due = now
        if let path = highRatePath(of: head.ops), let last = lastHighRateSend[path] {
            due = max(due, last + highRateSpacing)
        }
        if var bucket = pacer {
            due = max(due, now + bucket.delayUntilAvailable(now: now))
            pacer = bucket
        }
        return due
    }

    /// Patches on the wire: other changes (against `maxInFlight`) and high-rate values (against `highRateWindow`).
    private var inFlightCounts: (other: Int, highRate: Int) {
        var counts = (other: 0, highRate: 0)
        for patch in pending where patch.stage == .inFlight {
            if highRatePath(of: patch.ops) == nil { counts.other += 1 } else { counts.highRate += 1 }
        }
        return counts
    }

    /// Counts a message the session sends outside the outbox (ping, presence, signal) against the
    /// pacing budget, since the server's rate limit counts every message. Never blocks the message.
    public mutating func noteMessageSent(now: Int64) {
        guard isConnected else { return }
        startPacer(now: now)
        if var bucket = pacer {
            _ = bucket.take(now: now)
            pacer = bucket
        }
    }

    private mutating func startPacer(now: Int64) {
        guard pacer == nil, let pacing else { return }
        pacer = TokenBucket(rate: pacing.rate, burst: pacing.burst, now: now)
    }
}
