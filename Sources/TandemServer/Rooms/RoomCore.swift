import TandemProtocol

/// The sequencing logic of one room, free of I/O and threads: assigns revs in one total order,
/// applies each patch atomically, remembers every client's last seq for exactly-once delivery,
/// and says which storage writes make each step durable.
///
/// A value type with a single owner (`Room`), so every rule here is tested directly.
package struct RoomCore: Sendable {
    /// Tunables that come from the server configuration (`RoomSettings.init(_:)`); each default is the
    /// configuration's own.
    package struct Settings: Sendable, Equatable {
        package var limits = PatchLimits(maxOps: ServerConfiguration.standard.maxOpsPerPatch,
                                         maxDocument: ServerConfiguration.standard.maxDocumentBytes,
                                         maxDepth: ServerConfiguration.standard.maxDepth)
        /// Revisions a client may be behind and still resume by replay.
        package var historyWindow = Int64(ServerConfiguration.standard.historyWindow)
        /// Revisions of history kept in storage (at least the history window): what the rooms API
        /// reads back, and rebuilds states from.
        package var retainedRevisions = Int64(ServerConfiguration.standard.retainedRevisions)
        /// History older than this (ms) goes too, outside the history window; nil keeps it by revisions only.
        package var retainedMilliseconds: Int64?
        /// Patch events kept in memory for fast replay.
        package var recentCapacity = 1_024
        /// A snapshot of the document is stored every this many revisions.
        package var snapshotInterval = Int64(ServerConfiguration.standard.snapshotInterval)
        /// A client id's progress is forgotten once the room has not heard from it for this long, ms.
        package var progressTTL = ServerConfiguration.standard.clientProgressTTL.totalMilliseconds
        /// The most client ids whose progress the room keeps; beyond it (with a sixteenth of slack, so
        /// eviction runs in batches) the least recently seen are forgotten.
        package var maxTrackedClients = ServerConfiguration.standard.maxTrackedClientsPerRoom
    }

    /// The outcome of a submitted patch.
    enum Submission: Sendable, Equatable {
        /// Applied at `event.rev`; `writes` make it durable. `rebased` when the ops applied differ
        /// from those submitted (its author's `base` was behind): the ack then carries them.
        case applied(PatchEvent, [StorageWrite], rebased: Bool)
        /// The seq had been applied before, at `rev`; `nil` means "look it up in storage".
        case duplicate(seq: Int64, rev: Int64?)
        /// Not applied; nothing changed.
        case rejected(seq: Int64, PatchError)
    }

    /// How to bring a (re)joining client up to date.
    enum ResumePlan: Sendable, Equatable {
        /// Send the whole document.
        case snapshot
        /// Send these events (possibly none).
        case replay([PatchEvent])
        /// Send the stored events with rev > `after` (older than memory holds).
        case replayFromStorage(after: Int64)
    }

    package let name: String
    let settings: Settings
    package private(set) var epoch: String
    package private(set) var rev: Int64
    package private(set) var document: Document
    /// Progress per author: a client id counts within its user's (token `sub`), so no one moves or reads
    /// another user's progress by naming its client id.
    private(set) var progress: [Peer: ClientProgress]
    private(set) var recent: RecentHistory
    /// The oldest rev whose patch is still in storage (`rev + 1` when none is).
    private(set) var oldestStoredRev: Int64
    private(set) var snapshotRev: Int64
    /// Whether this room has forgotten the progress of any client id: an unknown client id may then be
    /// one it forgot (`welcome.forgotten`), not one that never wrote.
    private(set) var hasForgottenClients = false
    /// Whether progress is bounded here (a cluster's progress lives in Redis and is not).
    private var boundsProgress = true
    /// When expired progress is next looked for, unix ms.
    private var nextExpirySweep: Int64 = 0
    /// Authors forgotten while no write was being made (at the load), for the next write to store.
    private var unstoredForgets: [Peer] = []
    /// The array edits of the recent patches, for patches whose `base` is behind.
    private var edits = EditHistory(capacity: 0)
    /// Per author that sent a patch with an older `base`: what its next one is rebased over.
    private(set) var rebases: [Peer: RebaseContext] = [:]

    /// A new, empty room, and the write that stores it.
    static func create(name: String, epoch: String, settings: Settings) -> (RoomCore, StorageWrite) {
        var core = RoomCore(name: name, settings: settings, epoch: epoch, rev: 0, document: Document(), progress: [:],
                            recent: RecentHistory(capacity: settings.recentCapacity), oldestStoredRev: 1, snapshotRev: 0)
        core.edits = EditHistory(capacity: settings.recentCapacity)
        return (core, .createRoom(room: name, epoch: epoch, snapshot: Array("{}".utf8)))
    }

    /// A room brought back from storage: the snapshot with the later patches replayed onto it.
    /// - Throws: `RoomRestoreError` when the stored snapshot or a patch cannot be read back.
    static func restore(from record: RoomRecord, settings: Settings, now: Int64 = 0) throws(RoomRestoreError) -> RoomCore {
        let snapshot: JSONValue
        do {
            snapshot = try JSONValue.parseStored(record.snapshot)
        } catch {
            throw .corruptSnapshot(room: record.room, reason: error.description)
        }
        guard var document = Document(snapshot) else { throw .corruptSnapshot(room: record.room, reason: "not a JSON object") }
        var recent = RecentHistory(capacity: settings.recentCapacity)
        var expected = record.snapshotRev + 1
        // Stored patches passed the limits when they were applied; limits may have shrunk since.
        let unlimited = PatchLimits.unlimited
        var edits = EditHistory(capacity: settings.recentCapacity, at: record.snapshotRev)
        for patch in record.patchesAfterSnapshot {
            guard patch.rev == expected else { throw .gap(room: record.room, expected: expected, found: patch.rev) }
            let event: PatchEvent
            do {
                event = try PatchEvent(stored: patch)
                var made: [ArrayEdit] = []
                try document.apply(event.ops, limits: unlimited, edits: &made)
                edits.record(rev: patch.rev, author: Peer(user: patch.user, client: patch.client), edits: made)
            } catch {
                throw .corruptPatch(room: record.room, rev: patch.rev, reason: "\(error)")
            }
            recent.append(event)
            expected += 1
        }
        guard expected - 1 == record.rev else { throw .gap(room: record.room, expected: record.rev, found: expected - 1) }
        // Progress stored before times were kept (0) counts as seen at the load.
        let progress = record.clients.mapValues { ClientProgress(lastSeq: $0.lastSeq, lastRev: $0.lastRev, lastSeen: $0.lastSeen == 0 ? now : $0.lastSeen) }
        var core = RoomCore(name: record.room, settings: settings, epoch: record.epoch, rev: record.rev, document: document,
                            progress: progress, recent: recent, oldestStoredRev: record.oldestRev, snapshotRev: record.snapshotRev)
        core.hasForgottenClients = record.forgotClients
        core.edits = edits
        // Storage learns of what the load forgot with the room's next write.
        core.unstoredForgets = core.boundProgress(now: now)
        return core
    }

    /// A cluster room as a node's replica holds it at `rev`: `progress` comes from Redis and holds only
    /// clients whose last patch is at or before `rev`, later ones arrive with their folds. The history
    /// window is the Redis log's length, and nothing is stored locally. `forgotClients`: Redis dropped
    /// some client's progress, so a welcome to a client id it does not know says it may be forgotten.
    package static func cluster(name: String, epoch: String, rev: Int64, document: Document, progress: [Peer: ClientProgress],
                                forgotClients: Bool = false, settings: Settings) -> RoomCore {
        var core = RoomCore(name: name, settings: settings, epoch: epoch, rev: rev, document: document, progress: progress,
                            recent: RecentHistory(capacity: settings.recentCapacity),
                            oldestStoredRev: max(1, rev - settings.historyWindow + 1), snapshotRev: rev)
        core.boundsProgress = false
        core.hasForgottenClients = forgotClients
        core.edits = EditHistory(capacity: settings.recentCapacity, at: rev)
        return core
    }

    /// Applies a patch another step already sequenced and validated (a cluster room's log): the next
    /// rev, with no storage writes. Limits are not re-checked (they were checked by the author's node).
    /// - Throws: `PatchError` when the patch does not apply, i.e. this copy diverged and must be reloaded.
    mutating func fold(_ event: PatchEvent) throws(PatchError) {
        precondition(event.rev == rev + 1, "folds arrive in rev order")
        var made: [ArrayEdit] = []
        try document.apply(event.ops, limits: PatchLimits.unlimited, edits: &made)
        rev = event.rev
        progress[event.author] = ClientProgress(lastSeq: event.seq, lastRev: event.rev)
        recent.append(event)
        edits.record(rev: rev, author: event.author, edits: made)
        oldestStoredRev = max(oldestStoredRev, rev - settings.historyWindow + 1)
    }

    /// The last seq applied from `author` (0 when none).
    func lastSeq(of author: Peer) -> Int64 { progress[author]?.lastSeq ?? 0 }

    /// Whether `author` may be one whose progress this room forgot (so its `lastSeq` of 0 says nothing).
    func mayHaveForgotten(_ author: Peer) -> Bool { hasForgottenClients && progress[author] == nil }

    /// Keeps exactly-once memory bounded: forgets client ids not heard from for `progressTTL` (looked for at
    /// most hourly), and beyond `maxTrackedClients` plus a sixteenth the least recently seen (oldest
    /// `lastRev` first) down to `maxTrackedClients`. Returns the authors forgotten.
    private mutating func boundProgress(now: Int64) -> [Peer] {
        guard boundsProgress else { return [] }
        var forgotten: [Peer] = []
        if now >= nextExpirySweep {
            let ttl = settings.progressTTL
            for (client, entry) in progress where now - entry.lastSeen > ttl { forgotten.append(client) }
            nextExpirySweep = now + min(ttl, 3_600_000)
        }
        for client in forgotten {
            progress.removeValue(forKey: client)
            rebases.removeValue(forKey: client)
        }
        let cap = settings.maxTrackedClients
        if progress.count > cap + max(1, cap / 16) {
            let oldest = progress.sorted { $0.value.lastRev < $1.value.lastRev }.prefix(progress.count - cap)
            for (client, _) in oldest {
                progress.removeValue(forKey: client)
                rebases.removeValue(forKey: client)
                forgotten.append(client)
            }
        }
        if !forgotten.isEmpty { hasForgottenClients = true }
        return forgotten
    }

    /// Validates and applies one patch from `author`, all or nothing.
    ///
    /// Exactly-once: a seq at or below the client's last applied seq is never applied again, for every
    /// client id the room still remembers (`boundProgress`; a welcome tells a client it may be forgotten).
    /// A viewer's patch is rejected `forbidden`; an invalid one is rejected with the
    /// document unchanged and no rev consumed. `now` (unix ms) is when the room heard from the client.
    ///
    /// A `base` behind the room's rev rebases the ops (`PatchRebase`) over the other clients' patches
    /// applied after it, as the author's engine rebases its pending patches over them; the changes are
    /// rewritten past these ops even when they then fail to apply, as the author's engine does until
    /// the reject reaches it. A base older than the recent history is rejected `base_too_old` when an
    /// array was edited after it (otherwise there is nothing to rebase over).
    mutating func submit(seq: Int64, ops submitted: [PatchOp], base: Int64? = nil, author: SessionIdentity, now: Int64 = 0) -> Submission {
        let key = author.peer
        if let known = progress[key], seq <= known.lastSeq {
            if seq == known.lastSeq { return .duplicate(seq: seq, rev: known.lastRev) }
            return .duplicate(seq: seq, rev: recent.revision(author: key, seq: seq))
        }
        if let refusal = PatchAdmission.refusal(role: author.role, seq: seq) { return .rejected(seq: seq, refusal) }
        var ops = submitted
        if let base {
            do {
                let rebase = try edits.rebase(submitted, base: base, latest: rev, author: key, context: rebases[key])
                ops = rebase.ops
                rebases[key] = rebase.context
            } catch {
                return .rejected(seq: seq, error)
            }
        } else {
            rebases.removeValue(forKey: key)
        }
        var made: [ArrayEdit] = []
        do {
            try document.apply(ops, limits: settings.limits, edits: &made)
        } catch {
            return .rejected(seq: seq, error)
        }
        rev += 1
        // Encoded once: the same bytes are stored, kept for replays and sent in every connection's frame.
        var encodedOps: [UInt8] = []
        PatchOp.write(ops, into: &encodedOps)
        let event = PatchEvent(rev: rev, user: author.user, client: author.client, seq: seq, ops: ops, encodedOps: encodedOps)
        let known = progress.updateValue(ClientProgress(lastSeq: seq, lastRev: rev, lastSeen: now), forKey: key) != nil
        var forgotten = !known || now >= nextExpirySweep ? boundProgress(now: now) : []
        if !unstoredForgets.isEmpty {
            forgotten = unstoredForgets.filter { progress[$0] == nil } + forgotten
            unstoredForgets = []
        }
        recent.append(event)
        edits.record(rev: rev, author: key, edits: made)
        var writes: [StorageWrite] = [.appendPatch(StoredPatch(room: name, event: event, time: now))]
        if !forgotten.isEmpty { writes.append(.forgetClients(room: name, clients: forgotten)) }
        if rev - snapshotRev >= settings.snapshotInterval {
            let keepFrom = max(1, rev - max(settings.historyWindow, settings.retainedRevisions) + 1)
            writes.append(.snapshot(room: name, rev: rev, state: document.root.serializedBytes(), keepFrom: keepFrom))
            if let age = settings.retainedMilliseconds {
                writes.append(.expireHistory(room: name, olderThan: now - age, keepingFrom: max(1, rev - settings.historyWindow + 1)))
            }
            snapshotRev = rev
            oldestStoredRev = max(oldestStoredRev, keepFrom)
        }
        return .applied(event, writes, rebased: ops != submitted)
    }

    /// How a client that last saw `resume` catches up: replay when its epoch matches and the
    /// missed patches are inside the history window, else a snapshot.
    func plan(resume: ResumePoint?) -> ResumePlan {
        guard let resume, resume.epoch == epoch, resume.rev >= 0, resume.rev <= rev else { return .snapshot }
        if resume.rev == rev { return .replay([]) }
        guard rev - resume.rev <= settings.historyWindow, resume.rev + 1 >= oldestStoredRev else { return .snapshot }
        if let events = recent.events(after: resume.rev, through: rev) { return .replay(events) }
        return .replayFromStorage(after: resume.rev)
    }
}

/// Why a stored room could not be brought back; the room then starts a new epoch.
enum RoomRestoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The stored snapshot is not a JSON object.
    case corruptSnapshot(room: String, reason: String)
    /// A stored patch could not be parsed or applied.
    case corruptPatch(room: String, rev: Int64, reason: String)
    /// The stored revisions are not contiguous.
    case gap(room: String, expected: Int64, found: Int64)

    var description: String {
        switch self {
        case .corruptSnapshot(let room, let reason): "room '\(room)': stored snapshot unreadable (\(reason))"
        case .corruptPatch(let room, let rev, let reason): "room '\(room)': stored patch at rev \(rev) unreadable (\(reason))"
        case .gap(let room, let expected, let found): "room '\(room)': stored history has a gap (expected rev \(expected), found \(found))"
        }
    }
}
